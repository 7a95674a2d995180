/** The stand-in's in-memory records: only what the API answers need. */

export type TokenKind = 'personal' | 'job';

export interface UserRec {
  id: number;
  username: string;
  name: string;
  email: string;
  bot: boolean;
  createdAt: string;
}

export interface TokenRec {
  id: number;
  value: string;
  name: string;
  userId: number;
  kind: TokenKind;
  /** `api`, `read_api`, `read_repository`, `write_repository`, … */
  scopes: string[];
  revoked: boolean;
  expiresAt: string | null;
  /** For job tokens: the job they belong to. */
  jobId?: number;
}

export interface ProjectRec {
  id: number;
  /** `group/name` */
  path: string;
  defaultBranch: string;
  visibility: 'private' | 'internal' | 'public';
  /** Absolute path of the bare repository. */
  repoDir: string;
  forkedFromId: number | null;
  createdAt: string;
  /**
   * Settings → CI/CD → Variables → "Minimum role to use pipeline variables"
   * (`ci_pipeline_variables_minimum_override_role`); GitLab.com's default for
   * new projects is `no_one_allowed`.
   */
  pipelineVariablesMinimumRole: PipelineVariablesRole;
}

export type PipelineVariablesRole = 'no_one_allowed' | 'owner' | 'maintainer' | 'developer';

export interface MemberRec {
  /** A project id, or a group path (`group`) whose members every project below inherits. */
  scope: number | string;
  userId: number;
  accessLevel: number;
}

export interface MergeRequestRec {
  id: number;
  iid: number;
  projectId: number;
  sourceProjectId: number;
  title: string;
  description: string;
  labels: string[];
  sourceBranch: string;
  targetBranch: string;
  authorId: number;
  state: 'opened' | 'closed' | 'merged';
  allowCollaboration: boolean;
  removeSourceBranch: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface IssueRec {
  id: number;
  iid: number;
  projectId: number;
  title: string;
  description: string;
  labels: string[];
  authorId: number;
  state: 'opened' | 'closed';
  /** Visible to project members only; a comment on it is sent as a `Confidential Note Hook`. */
  confidential: boolean;
  createdAt: string;
  updatedAt: string;
}

export type NoteableKind = 'MergeRequest' | 'Issue';

export interface NoteRec {
  id: number;
  projectId: number;
  noteableType: NoteableKind;
  noteableId: number;
  noteableIid: number;
  body: string;
  authorId: number;
  system: boolean;
  /** An internal note (visible to project members only; its webhook is `Confidential Note Hook`). */
  internal: boolean;
  discussionId: string;
  createdAt: string;
  updatedAt: string;
}

export interface DiscussionRec {
  id: string;
  /** A plain comment; becomes a thread when someone replies. */
  individual: boolean;
}

export interface AwardRec {
  id: number;
  noteId: number;
  userId: number;
  name: string;
  createdAt: string;
}

/** An award emoji on a merge request or issue itself (not on one of its notes). */
export interface TargetAwardRec {
  id: number;
  awardableType: 'MergeRequest' | 'Issue';
  /** The merge request's or issue's own id (not its iid). */
  awardableId: number;
  userId: number;
  name: string;
  createdAt: string;
}

export interface ProtectedBranchRec {
  id: number;
  projectId: number;
  /** Name or wildcard pattern. */
  name: string;
  pushAccessLevel: number;
  mergeAccessLevel: number;
}

export type PipelineStatus =
  'created' | 'pending' | 'running' | 'success' | 'failed' | 'canceled' | 'skipped';

export interface PipelineRec {
  id: number;
  iid: number;
  projectId: number;
  ref: string;
  sha: string;
  status: PipelineStatus;
  source: string;
  userId: number;
  variables: Record<string, string>;
  /** Pipeline inputs it was created with (`inputs[…]`). */
  inputs: Record<string, string>;
  /** `workflow: name` of the project's `.gitlab-ci.yml`, evaluated; null when unnamed. */
  name: string | null;
  /**
   * GitLab's "protected ref": a protected branch. A merge request ref
   * (`refs/merge-requests/<iid>/head`) never is; its jobs get no protected
   * variables (`jobVariables`).
   */
  protectedRef: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface JobRec {
  id: number;
  pipelineId: number;
  projectId: number;
  name: string;
  stage: string;
  status: PipelineStatus;
  /** The job's artifacts archive (zip), absent when none or expired. */
  artifacts: Uint8Array | null;
  artifactsExpireAt: string | null;
  createdAt: string;
}

/** A project CI/CD variable; a protected one reaches only pipelines on protected refs. */
export interface CiVariableRec {
  projectId: number;
  key: string;
  value: string;
  protected: boolean;
}

export interface TriggerTokenRec {
  id: number;
  projectId: number;
  value: string;
  ownerId: number;
  description: string;
}

/** A quick action GitLab would have executed from a note body. */
export interface QuickActionRec {
  projectId: number;
  noteableType: NoteableKind;
  noteableIid: number;
  userId: number;
  command: string;
  line: string;
}
