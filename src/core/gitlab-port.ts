/**
 * The GitLab port: everything mr-agent asks of GitLab, in its own terms. One
 * real adapter (gitbeaker-adapter.ts, over `@gitbeaker/rest`); tests run it
 * against the stand-in in src/testkit/gitlab-server/.
 */

/** A project id or its URL-encoded-able path (`group/project`). */
export type ProjectRef = number | string;

/** What a note hangs on. */
export interface Noteable {
  type: 'merge_request' | 'issue';
  iid: number;
}

export interface GitLabUser {
  id: number;
  username: string;
  name: string;
  bot: boolean;
}

export interface Project {
  id: number;
  pathWithNamespace: string;
  defaultBranch: string;
  visibility: string;
  /** Clone/push URL (https in GitLab; file:// in the stand-in). */
  httpUrlToRepo: string;
  webUrl: string;
}

/** What a merge request and an issue have in common. */
export interface WorkItem {
  id: number;
  iid: number;
  projectId: number;
  title: string;
  description: string;
  state: string;
  labels: string[];
  author: GitLabUser;
  webUrl: string;
}

export interface MergeRequest extends WorkItem {
  sourceBranch: string;
  targetBranch: string;
  sourceProjectId: number;
  targetProjectId: number;
  /** The source branch lives in another project (a fork). */
  isFork: boolean;
  /** Members who can merge may push to the fork's source branch. */
  allowCollaboration: boolean;
  draft: boolean;
  sha: string;
}

/** One file of a merge request's diff, summarised. */
export interface ChangedFile {
  oldPath: string;
  newPath: string;
  status: 'added' | 'deleted' | 'renamed' | 'modified';
  additions: number;
  deletions: number;
  /** The unified diff text (may be empty for binary or very large files). */
  diff: string;
}

export interface Issue extends WorkItem {
  /** Visible to project members only: nothing of it may reach anything public. */
  confidential: boolean;
}

/** A merge request diff version (`GET …/versions`): the shas a diff position names. */
export interface DiffVersion {
  id: number;
  headSha: string;
  baseSha: string;
  startSha: string;
  createdAt: string;
}

/** One end of a multi-line position's `line_range`. */
export interface DiffLineRef {
  /** GitLab's line code: the path's SHA-1, `_old`, `_new` (0 for a side the line is not on). */
  lineCode: string;
  type: 'new' | 'old' | undefined;
  oldLine: number | undefined;
  newLine: number | undefined;
}

/**
 * Where a diff thread sits (doc/api/discussions.md, text positions): an added
 * line has only `newLine`, a removed one only `oldLine`, an unchanged one both.
 */
export interface DiffPosition {
  baseSha: string;
  startSha: string;
  headSha: string;
  oldPath: string;
  newPath: string;
  oldLine: number | undefined;
  newLine: number | undefined;
  lineRange?: { start: DiffLineRef; end: DiffLineRef } | undefined;
}

export interface Note {
  id: number;
  body: string;
  author: GitLabUser;
  /** GitLab's own activity notes ("added 1 commit", label changes…). */
  system: boolean;
  /** An internal note, visible to project members only: never read into anything public. */
  internal?: boolean;
  createdAt: string;
  updatedAt: string;
  /** A diff thread's note: where it sits in the diff. */
  position?: DiffPosition | undefined;
  /** A resolvable note (a thread's): whether its thread is resolved. */
  resolved?: boolean | undefined;
}

export interface Discussion {
  id: string;
  /** A plain comment rather than a thread. */
  individualNote: boolean;
  /** The first note starts the thread; the others are replies, oldest first. */
  notes: Note[];
}

export interface AwardEmoji {
  id: number;
  name: string;
  user: GitLabUser;
  /** When GitLab recorded it (ISO 8601), when the answer says. */
  createdAt?: string | undefined;
}

/** `awarded: false` when this user had already given that emoji (GitLab's 404 "has already been taken"). */
export type AwardResult = { awarded: true; award: AwardEmoji } | { awarded: false };

export interface Pipeline {
  id: number;
  iid: number;
  projectId: number;
  ref: string;
  sha: string;
  status: string;
  source: string;
  /** `workflow: name`, when the pipeline has one. */
  name?: string | undefined;
  webUrl: string;
  createdAt: string;
}

export interface Job {
  id: number;
  name: string;
  status: string;
  ref: string;
  pipelineId: number;
  webUrl: string;
  artifactsExpireAt: string | undefined;
}

export interface ProtectedBranch {
  /** A branch name or a wildcard pattern such as `release/*`. */
  name: string;
}

export interface TokenInfo {
  id: number;
  name: string;
  scopes: string[];
  userId: number | undefined;
  active: boolean;
  expiresAt: string | undefined;
}

export interface NewMergeRequest {
  sourceBranch: string;
  targetBranch: string;
  title: string;
  description: string;
  /** Prefixes the title with `Draft: ` (GitLab has no separate draft flag on create). */
  draft?: boolean;
  removeSourceBranch?: boolean;
  labels?: string[];
}

export interface PipelineFilter {
  ref?: string;
  status?: string;
  source?: string;
}

export interface TriggerRequest {
  /** The pipeline trigger token (not the API token). */
  token: string;
  ref: string;
  variables?: Record<string, string>;
  /** Pipeline inputs (`inputs[name]`), for a `.gitlab-ci.yml` that declares them in `spec: inputs:`. */
  inputs?: Record<string, string>;
}

export interface GitLabPort {
  currentUser(): Promise<GitLabUser>;
  /** The API token itself (`GET /personal_access_tokens/self`): its scopes. */
  tokenInfo(): Promise<TokenInfo>;
  /**
   * The instance's version as `GET /version` gives it ("17.11.2-ee"); absent
   * from ports that cannot tell (in-memory doubles).
   */
  instanceVersion?(): Promise<string>;
  getProject(project: ProjectRef): Promise<Project>;

  getMergeRequest(project: ProjectRef, iid: number): Promise<MergeRequest>;
  listMergeRequestChanges(project: ProjectRef, iid: number): Promise<ChangedFile[]>;
  findMergeRequests(
    project: ProjectRef,
    filter: { sourceBranch?: string; state?: 'opened' | 'closed' | 'merged' | 'all' },
  ): Promise<MergeRequest[]>;
  createMergeRequest(project: ProjectRef, request: NewMergeRequest): Promise<MergeRequest>;
  getIssue(project: ProjectRef, iid: number): Promise<Issue>;

  /** Every note, oldest first (all pages). */
  listNotes(project: ProjectRef, on: Noteable): Promise<Note[]>;
  /**
   * One page of notes, newest first (`order_by=created_at&sort=desc`): a
   * look at what is new costs one read, never a full listing.
   */
  listNewestNotes(
    project: ProjectRef,
    on: Noteable,
    page: { page: number; perPage: number },
  ): Promise<Note[]>;
  getNote(project: ProjectRef, on: Noteable, noteId: number): Promise<Note>;
  /** Every discussion (thread), oldest first, replies inside. */
  listDiscussions(project: ProjectRef, on: Noteable): Promise<Discussion[]>;
  /** One discussion by its id, replies inside; undefined when there is none of that id. */
  getDiscussion(
    project: ProjectRef,
    on: Noteable,
    discussionId: string,
  ): Promise<Discussion | undefined>;
  /** `internal`: an internal note, visible to project members only (notes API `internal`). */
  createNote(
    project: ProjectRef,
    on: Noteable,
    body: string,
    options?: { internal?: boolean },
  ): Promise<Note>;
  /**
   * Starts a thread (`POST …/discussions`): its first note is `body`. On a
   * merge request the thread is resolvable (on an issue too, GitLab 16.7+);
   * replies go in it with `replyToDiscussion`.
   */
  createDiscussion(project: ProjectRef, on: Noteable, body: string): Promise<Discussion>;
  /**
   * The merge request's diff versions, newest first (`GET …/versions`); the
   * newest one's shas are what a new diff thread's position names. Absent
   * from ports without diff threads (in-memory doubles).
   */
  listDiffVersions?(project: ProjectRef, iid: number): Promise<DiffVersion[]>;
  /**
   * Starts a thread on a diff line (`POST …/discussions` with `position`).
   * GitLab refuses a position that is on no line of the diff with a 400,
   * thrown as an ExternalServiceError of status 400.
   */
  createDiffDiscussion?(
    project: ProjectRef,
    iid: number,
    body: string,
    position: DiffPosition,
  ): Promise<Discussion>;
  /** Resolves (or reopens) a merge request thread (`PUT …/discussions/:id?resolved=`). */
  resolveDiscussion?(
    project: ProjectRef,
    iid: number,
    discussionId: string,
    resolved: boolean,
  ): Promise<Discussion>;
  editNote(project: ProjectRef, on: Noteable, noteId: number, body: string): Promise<Note>;
  replyToDiscussion(
    project: ProjectRef,
    on: Noteable,
    discussionId: string,
    body: string,
  ): Promise<Note>;

  awardEmojiOnNote(
    project: ProjectRef,
    on: Noteable,
    noteId: number,
    name: string,
  ): Promise<AwardResult>;
  listNoteAwardEmoji(project: ProjectRef, on: Noteable, noteId: number): Promise<AwardEmoji[]>;
  /** An award on the merge request or issue itself (`POST …/:iid/award_emoji`). */
  awardEmojiOnTarget?(project: ProjectRef, on: Noteable, name: string): Promise<AwardResult>;
  listTargetAwardEmoji?(project: ProjectRef, on: Noteable): Promise<AwardEmoji[]>;
  /** `DELETE …/:iid/award_emoji/:award_id`; an award already gone is no error. */
  removeTargetAwardEmoji?(project: ProjectRef, on: Noteable, awardId: number): Promise<void>;

  /** The user's effective role on the project, inherited ones included; 0 when none. */
  accessLevel(project: ProjectRef, userId: number): Promise<number>;
  /**
   * Every member of the project with their effective role, inherited ones
   * included (`GET /projects/:id/members/all`), reading at most `maxPages`
   * pages of 100; `complete: false` when there were more.
   */
  listMembers?(
    project: ProjectRef,
    maxPages: number,
  ): Promise<{ members: Map<number, number>; complete: boolean }>;
  listProtectedBranches(project: ProjectRef): Promise<ProtectedBranch[]>;
  /** A file's text on a ref; undefined when the file (or ref) does not exist. */
  readFile(project: ProjectRef, path: string, ref: string): Promise<string | undefined>;

  listPipelines(project: ProjectRef, filter?: PipelineFilter): Promise<Pipeline[]>;
  pipelineVariables(project: ProjectRef, pipelineId: number): Promise<Record<string, string>>;
  listPipelineJobs(project: ProjectRef, pipelineId: number): Promise<Job[]>;
  cancelPipeline(project: ProjectRef, pipelineId: number): Promise<Pipeline>;
  triggerPipeline(project: ProjectRef, request: TriggerRequest): Promise<Pipeline>;
  /** The job's artifacts archive (zip). Throws ExternalServiceError status 404 when gone. */
  downloadJobArtifacts(project: ProjectRef, jobId: number): Promise<Uint8Array>;
}
