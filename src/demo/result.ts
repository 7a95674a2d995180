import type { LoggedRequest } from '../testkit/gitlab-server/index.ts';
import type { LoggedRequest as LlmRequest } from '../testkit/openai-server/server.ts';
import type { JobResult } from './job.ts';
import type { DemoThread } from './review-scene.ts';

/** What `mr-agent demo` returns: where things ran and what they left. */
export interface DemoResult {
  exitCode: number;
  dir: string;
  kept: boolean;
  jobId: number;
  /** Where the stand-in and the scripted model listened. */
  gitlabUrl: string;
  llmUrl: string;
  job: JobResult;
  checkoutDir: string;
  /** The project's bare repository (the remote the change was pushed to). */
  remoteDir: string;
  branch: string;
  notes: Map<string, string>;
  progressNoteId: string | undefined;
  gitlabRequests: LoggedRequest[];
  llmRequests: LlmRequest[];
  unusedReplies: string[];
  durationMs: number;
  /** The review scene: the diff threads at the end, and the review job before the fix. */
  threads?: DemoThread[];
  reviewJob?: JobResult;
}
