/** What the pre-planning phase gathers: the planner's inputs. */
export interface DiscussionComment {
  author: string;
  body: string;
  /** Only authorised users' comments count as instructions: anyone else's text is data. */
  authorized: boolean;
  at?: string;
}

/** The request being worked on: a task text, or a merge request / issue. */
export interface RequestContext {
  source: 'task' | 'merge_request' | 'issue';
  /** e.g. `!12` or `#34` for GitLab items. */
  reference?: string;
  title: string;
  body: string;
  labels: string[];
  /** Files changed by a merge request, one per line. */
  diffSummary?: string;
  discussion: DiscussionComment[];
  /** The diff threads the run is asked to address (`/agent` in a thread, `/agent address-reviews`). */
  threads?: ReviewThreadRequest[];
}

/** A thread on a diff line the run addresses: where it sits and what its notes say. */
export interface ReviewThreadRequest {
  discussionId: string;
  /** How the prompt and the answer call name it: `T1`, `T2`, … */
  label: string;
  path: string | undefined;
  /** The line it sits on (new side, else old side), and the first line of a multi-line one. */
  line: number | undefined;
  startLine?: number | undefined;
  /** Its notes, oldest first, each someone's text. */
  notes: DiscussionComment[];
}

/** Loads the request (GitLab layer in CI; the task itself for local runs). */
export interface RequestSource {
  load(signal?: AbortSignal): Promise<RequestContext>;
}

/** The detected environment (docs/environment.md), produced by the environment helper. */
export interface EnvironmentInfo {
  detected_files: Record<string, string>;
  environment_type: string;
  dependencies: string[];
  setup_commands: string[];
}

export interface GuidanceFile {
  path: string;
  content: string;
  truncated: boolean;
}

export interface Gathered {
  request: RequestContext;
  /** The PRD text of a Task YAML (`task.prd.path` or `.text`). */
  prd?: string;
  guidance: GuidanceFile[];
  environment?: EnvironmentInfo;
  /** Earlier runs on the same MR/issue, already summarised. */
  history: string[];
  /** Top of the repository's file tree. */
  files: string[];
}
