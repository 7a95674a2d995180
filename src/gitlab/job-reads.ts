/**
 * The GitLab reads of one CI job, each made at most once, to keep a job's API calls few: the
 * merge request or issue, each member's role, and the listing of the merge
 * request's or issue's threads, which serves gather (the discussion), history
 * (earlier runs' progress notes) and the first look at answers to a ❓ note.
 * Built once per job and passed down; never a module-level cache.
 *
 * A read that fails is forgotten, so a later caller asks again; a read started
 * early (a prefetch) that nobody awaits never becomes an unhandled rejection.
 */
import type {
  Discussion,
  GitLabPort,
  Issue,
  MergeRequest,
  Note,
  Noteable,
  ProjectRef,
} from '../core/gitlab-port.ts';

export interface JobReads {
  /** The project every read is about. */
  readonly project: ProjectRef;
  mergeRequest(iid: number): Promise<MergeRequest>;
  issue(iid: number): Promise<Issue>;
  /** A user's effective role on the project (0 when not a member). */
  accessLevel(userId: number): Promise<number>;
  /** The threads as listed once for this job, oldest first, replies inside. */
  discussions(on: Noteable): Promise<Discussion[]>;
  /** The same listing as single notes, oldest first (GitLab's `/notes` order). */
  notes(on: Noteable): Promise<Note[]>;
}

/**
 * The notes of a thread listing, oldest first; equal times keep GitLab's id
 * order. Times are compared as instants, not as text: `localeCompare` would
 * load ICU's collation data (tens of milliseconds before the first note).
 */
export function notesOf(discussions: readonly Discussion[]): Note[] {
  return discussions
    .flatMap((d) => d.notes)
    .sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt) || a.id - b.id);
}

export function jobReads(gitlab: GitLabPort, project: ProjectRef): JobReads {
  const made = new Map<string, Promise<unknown>>();
  function once<T>(key: string, read: () => Promise<T>): Promise<T> {
    const known = made.get(key);
    if (known) return known as Promise<T>;
    const started = read();
    made.set(key, started);
    started.catch(() => made.delete(key));
    return started;
  }
  const where = (on: Noteable) => `${on.type}:${on.iid}`;
  const discussions = (on: Noteable) =>
    once(`discussions ${where(on)}`, () => gitlab.listDiscussions(project, on));
  return {
    project,
    mergeRequest: (iid) => once(`mr ${iid}`, () => gitlab.getMergeRequest(project, iid)),
    issue: (iid) => once(`issue ${iid}`, () => gitlab.getIssue(project, iid)),
    accessLevel: (userId) => once(`member ${userId}`, () => gitlab.accessLevel(project, userId)),
    discussions,
    notes: async (on) => notesOf(await discussions(on)),
  };
}
