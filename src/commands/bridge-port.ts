import type { AwardEmoji, AwardResult, Discussion, Note } from '../core/gitlab-port.ts';
import type { CommandTarget } from './note-rules.ts';

/**
 * What the comment rules need from GitLab: a narrow port, so the dispatch
 * logic is tested with an in-memory fake and runs in production on the GitLab
 * port (src/gitlab/) through gitlab-bridge.ts.
 */
export interface AgentPipeline {
  id: number;
  status: string;
  ref: string;
  webUrl?: string | undefined;
  /** `workflow: name` (`mr-agent !12` with the documented header), when it has one. */
  name?: string | undefined;
}

/** What a triggered pipeline carries: variables, inputs, or neither. */
export interface PipelineRequest {
  variables?: Readonly<Record<string, string>>;
  inputs?: Readonly<Record<string, string>>;
}

export interface BridgeGitLab {
  /** The token's own user (`GET /user`): its notes are never commands. */
  currentUser(): Promise<{ id: number; username: string }>;
  /** The user's effective access level on the project (0 when not a member). */
  accessLevel(projectId: number, userId: number): Promise<number>;
  /**
   * Every member of the project with their effective role
   * (`GET /projects/:id/members/all`, at most `maxPages` pages of 100);
   * `complete: false` when there were more. Absent: one look-up per author.
   */
  listMembers?(
    projectId: number,
    maxPages: number,
  ): Promise<{ members: Map<number, number>; complete: boolean }>;
  /**
   * Awards `name` to the note as the token's user; the atomic idempotency
   * claim (`awarded: false`: this user had already given it).
   */
  awardNoteEmoji(
    projectId: number,
    target: CommandTarget,
    noteId: number,
    name: string,
  ): Promise<AwardResult>;
  /** The awards on one note (a TRIGGER_PAYLOAD run's comment carries the agent's ▶). */
  listNoteAwardEmoji?(
    projectId: number,
    target: CommandTarget,
    noteId: number,
  ): Promise<AwardEmoji[]>;
  /**
   * Awards `name` to the merge request or issue itself as the token's user
   * (`awarded: false`: already given by this user) — the claim every bridge
   * replica sees, used as the target's lock (./target-lock.ts).
   */
  awardTargetEmoji?(projectId: number, target: CommandTarget, name: string): Promise<AwardResult>;
  listTargetAwardEmoji?(projectId: number, target: CommandTarget): Promise<AwardEmoji[]>;
  removeTargetAwardEmoji?(projectId: number, target: CommandTarget, awardId: number): Promise<void>;
  /** Replies in the note's thread (or as a new note when the thread is not known). */
  reply(
    projectId: number,
    target: CommandTarget,
    discussionId: string | undefined,
    body: string,
  ): Promise<void>;
  /**
   * Posts an internal note (`internal: true`: visible to project members
   * only) on the MR or issue — the answer to a command said in private.
   */
  internalNote(projectId: number, target: CommandTarget, body: string): Promise<void>;
  /**
   * One thread of the MR or issue, notes oldest first; undefined when there is
   * no such thread. Read only for replies in threads (a possible resume).
   */
  discussion(
    projectId: number,
    target: CommandTarget,
    discussionId: string,
  ): Promise<Discussion | undefined>;
  /** Every note of the MR or issue, oldest first (read for `/agent status`). */
  listNotes(projectId: number, target: CommandTarget): Promise<Note[]>;
  /** The MR's or issue's page (`web_url`), for links to its notes. */
  targetWebUrl(projectId: number, target: CommandTarget): Promise<string>;
  /**
   * `POST /projects/:id/trigger/pipeline` with a pipeline trigger token, the
   * request as pipeline variables or as pipeline inputs (docs/ci-component.md).
   */
  triggerPipeline(
    projectId: number,
    ref: string,
    token: string,
    request: PipelineRequest,
  ): Promise<AgentPipeline>;
  /** Pipelines started by a trigger token on `ref`, newest first (one page). */
  listTriggeredPipelines(projectId: number, ref: string): Promise<AgentPipeline[]>;
  /** `GET /projects/:id/pipelines/:pipeline_id/variables` as a map. */
  pipelineVariables(projectId: number, pipelineId: number): Promise<Record<string, string>>;
  cancelPipeline(projectId: number, pipelineId: number): Promise<AgentPipeline>;
}
