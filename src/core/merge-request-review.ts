import type { GitLabPort, ProjectRef } from './gitlab-port.ts';
import type { Language } from '../messages/language.ts';

/**
 * The merge request a review-only run (`/agent review`) reviews, and the
 * GitLab calls that read its latest diff version and post the review as
 * threads on its diff lines. Set by the composition root for such a run.
 */
export interface MergeRequestReview {
  gitlab: GitLabPort;
  project: ProjectRef;
  iid: number;
  /** The agent's own user: its threads are the ones a re-review keeps or resolves. */
  botUserId: number;
  /** The merge request's page; a thread's link is its note's anchor there. */
  webUrl: string;
  title: string;
  /** The merge request's description (hostile text: fenced as data in the prompt). */
  description: string;
  /** The notes' language. */
  language?: Language | undefined;
}
