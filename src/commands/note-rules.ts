import type { ForkMode } from '../config/options.ts';
import { isBotUser } from '../core/bot-users.ts';
import { parseMarker } from '../report/marker.ts';
import { parseAgentCommand, type SubCommand } from './parse.ts';
import type { NoteHookEvent } from './note-event.ts';

/**
 * The cheap, pure half of the comment rules: everything that can be
 * decided from the event alone. The access-level check and the 👀 claim need
 * the API and follow in dispatch.ts. The webhook bridge and `mr-agent ci`
 * (TRIGGER_PAYLOAD) apply the same function.
 */
export interface NoteRules {
  /** `trigger.command_prefix`. */
  prefix: string;
  /** The agent's own GitLab user, when known: its notes are never commands. */
  self?: { id: number; username?: string } | undefined;
  /** `trigger.forks`: where a fork's merge request runs. Default `patch`. */
  forks?: ForkMode | undefined;
}

export type CommandTarget =
  | {
      kind: 'merge_request';
      iid: number;
      sourceBranch: string;
      /** The source branch lives in another project (a fork). */
      fork: boolean;
    }
  | { kind: 'issue'; iid: number };

/** Where a comment was made and by whom: what every request carries. */
export interface NoteOrigin {
  projectId: number;
  noteId: number;
  /** The thread the note belongs to (replies go there), when the event names it. */
  discussionId: string | undefined;
  target: CommandTarget;
  /**
   * Where the agent pipeline runs: the MR source branch, else the default
   * branch; a fork's MR with `trigger.forks: run` on its own ref (`mergeRequestRef`).
   */
  ref: string;
  user: { id: number; username: string };
}

/** The ❓ question a `resume` request answers (from the question note and its marker). */
export interface ResumePoint {
  /** The ❓ note's thread (the reply is in it too). */
  discussionId: string;
  /** The ❓ note. */
  questionNoteId: number;
  /** The paused run's task id (marker `task=`), when the note names it. */
  taskId: string | undefined;
  /** The CI job whose artifacts hold the paused run's `.mr-agent/` (marker `job=`). */
  jobId: string | undefined;
}

/**
 * The diff thread a command was written in: `/agent fix this` (or `/agent`
 * alone) there asks for the change the thread is about.
 */
export interface DiffThreadRef {
  discussionId: string;
  /** The file and line the thread sits on, from the note's position. */
  path: string | undefined;
  line: number | undefined;
}

/**
 * An accepted request: a comment command, or a reply that resumes a run
 * stopped on a ❓ question (`resume`; its `instruction` is empty — the run
 * reads the answers from the thread — and `noteId` is the reply).
 */
export type CommandRequest = NoteOrigin & {
  instruction: string;
  /** Set when the command asks for what its diff thread is about (a run). */
  thread?: DiffThreadRef | undefined;
} & ({ command: SubCommand; resume?: undefined } | { command: 'resume'; resume: ResumePoint });

/**
 * A comment that is not a command but a reply in a thread: it resumes a run
 * when the thread starts with a paused ❓ question, which only the thread
 * itself (an API call) can tell — see resume.ts.
 */
export type ReplyCandidate = NoteOrigin & { discussionId: string };

export type IgnoreReason =
  | 'system-note'
  | 'edited-note'
  | 'own-note'
  | 'bot-author'
  | 'confidential'
  | 'unsupported-target'
  | 'no-ref'
  | 'not-a-command';

export type NoteDecision =
  | { kind: 'ignore'; reason: IgnoreReason; detail: string }
  | { kind: 'command'; request: CommandRequest }
  /** `detail`: why it is no command (for logs when the thread is not looked at). */
  | { kind: 'reply'; reply: ReplyCandidate; detail: string }
  /**
   * A command said in private (an internal note, a confidential issue): it
   * starts nothing; the bridge answers it with an internal note.
   */
  | { kind: 'private'; request: CommandRequest; detail: string };

/** GitLab's note class for a note inside a thread (hook data `object_attributes.type`). */
export const THREAD_NOTE_TYPE = 'DiscussionNote';

/** GitLab's note class for a note of a thread on a diff line: its first note and every reply. */
export const DIFF_NOTE_TYPE = 'DiffNote';

function ignore(reason: IgnoreReason, detail: string): NoteDecision {
  return { kind: 'ignore', reason, detail };
}

/**
 * The ref GitLab keeps a merge request's head at in the target project, forks
 * included. A pipeline there is not on a protected branch, so it gets no
 * protected variables (GitLab's fork merge request pipelines in the parent
 * project run there too).
 */
export function mergeRequestRef(iid: number): string {
  return `refs/merge-requests/${iid}/head`;
}

/**
 * A fork's branch does not exist here. With `patch` (the default) the job
 * runs none of the fork's code, so it runs on the default branch and fetches
 * the merge request; with `run` the fork's code runs, so never on a protected
 * ref: on the merge request's own ref.
 */
function forkRef(rules: NoteRules, iid: number, defaultBranch: string | undefined) {
  return rules.forks === 'run' ? mergeRequestRef(iid) : defaultBranch;
}

function targetOf(
  event: NoteHookEvent,
  projectId: number,
  rules: NoteRules,
): { target: CommandTarget; ref: string | undefined } | undefined {
  const type = event.object_attributes.noteable_type;
  const defaultBranch = event.project.default_branch || undefined;
  if (type === 'MergeRequest' && event.merge_request) {
    const mr = event.merge_request;
    const fork = mr.source_project_id != null && mr.source_project_id !== projectId;
    const ref = fork ? forkRef(rules, mr.iid, defaultBranch) : mr.source_branch;
    return {
      target: { kind: 'merge_request', iid: mr.iid, sourceBranch: mr.source_branch, fork },
      ref,
    };
  }
  if (type === 'Issue' && event.issue) {
    return { target: { kind: 'issue', iid: event.issue.iid }, ref: defaultBranch };
  }
  return undefined;
}

/** What the delivery said besides its body: the `X-Gitlab-Event` header, when there was one. */
export interface NoteDelivery {
  hookEvent?: string | undefined;
}

/** The webhook event GitLab sends for an internal note or a comment on a confidential issue. */
export const CONFIDENTIAL_NOTE_HOOK = 'Confidential Note Hook';

/**
 * Why the note was said in private, if it was: the agent's notes, commits and
 * merge requests are public, so what is said in an internal note or on a
 * confidential issue never starts a run. Any one of GitLab's signals is
 * enough: the note's `internal` (older: `confidential`), the issue's
 * `confidential`, the body's `event_type: confidential_note`, or the
 * `Confidential Note Hook` header.
 */
function privateReason(event: NoteHookEvent, delivery: NoteDelivery): string | undefined {
  const note = event.object_attributes;
  if (note.internal || note.confidential)
    return 'internal notes never start a run: its output would be public';
  if (note.noteable_type === 'Issue' && event.issue?.confidential)
    return 'a confidential issue never starts a run: its output would be public';
  if (event.event_type === 'confidential_note' || delivery.hookEvent === CONFIDENTIAL_NOTE_HOOK)
    return 'a confidential note (an internal note or a comment on a confidential issue) never starts a run: its output would be public';
  return undefined;
}

/** GitLab's hook times: `2026-05-17 18:21:36 UTC` (hook data) or ISO 8601. */
function hookTime(text: string | null | undefined): number | undefined {
  if (!text) return undefined;
  const iso = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d+)? UTC$/.test(text)
    ? `${text.slice(0, -4).replace(' ', 'T')}Z`
    : text;
  const time = Date.parse(iso);
  return Number.isNaN(time) ? undefined : time;
}

/**
 * Why the note is an edit, if it is: `action: update` (GitLab 16.11+), or,
 * without an action, a note changed after it was written. Only a new comment
 * starts a run, so editing a command never starts a second one.
 */
function editReason(note: NoteHookEvent['object_attributes']): string | undefined {
  if (note.action) {
    return note.action === 'create'
      ? undefined
      : `note action is "${note.action}"; only new comments count`;
  }
  const created = hookTime(note.created_at);
  const updated = hookTime(note.updated_at);
  if (created !== undefined && updated !== undefined && updated > created)
    return 'the note was changed after it was written (an edit); only new comments count';
  return undefined;
}

function originOf(
  event: NoteHookEvent,
  found: { target: CommandTarget; ref: string },
  authorId: number,
): NoteOrigin {
  const note = event.object_attributes;
  return {
    projectId: event.project.id ?? event.project_id,
    noteId: note.id,
    discussionId: note.discussion_id ?? undefined,
    target: found.target,
    ref: found.ref,
    user: { id: authorId, username: event.user.username },
  };
}

/** The diff thread a merge request note belongs to, when it is a `DiffNote` of one. */
function diffThreadOf(event: NoteHookEvent): DiffThreadRef | undefined {
  const note = event.object_attributes;
  if (note.type !== DIFF_NOTE_TYPE || !note.discussion_id || !event.merge_request) return undefined;
  const position = note.position;
  return {
    discussionId: note.discussion_id,
    path: position?.new_path ?? position?.old_path ?? undefined,
    line: position?.new_line ?? position?.old_line ?? undefined,
  };
}

/**
 * Decides from the event alone whether it is a command for the agent, a reply
 * in a thread that may resume a paused run (`reply`: only notes GitLab calls
 * `DiscussionNote` with a discussion id — plain comments never cost an API
 * call), or nothing.
 */
export function decideNote(
  event: NoteHookEvent,
  rules: NoteRules,
  delivery: NoteDelivery = {},
): NoteDecision {
  const note = event.object_attributes;
  if (note.system) return ignore('system-note', 'system notes are never commands');
  const edited = editReason(note);
  if (edited) return ignore('edited-note', edited);
  const authorId = note.author_id ?? event.user.id;
  if (rules.self && (authorId === rules.self.id || event.user.id === rules.self.id)) {
    return ignore('own-note', 'the agent does not answer its own notes');
  }
  if (parseMarker(note.note)) return ignore('own-note', 'the note carries the mr-agent marker');
  if (isBotUser(event.user)) return ignore('bot-author', `@${event.user.username} is a bot`);
  const secret = privateReason(event, delivery);
  const projectId = event.project.id ?? event.project_id;
  const found = targetOf(event, projectId, rules);
  if (!found) {
    return ignore('unsupported-target', `comments on a ${note.noteable_type} are not commands`);
  }
  const parsed = parseAgentCommand(note.note, rules.prefix);
  if (secret) {
    if (!parsed.isCommand || !found.ref) return ignore('confidential', secret);
    // the instruction stays out: nothing said in private is carried further
    const origin = originOf(event, { target: found.target, ref: found.ref }, authorId);
    return {
      kind: 'private',
      request: { ...origin, command: parsed.command, instruction: '' },
      detail: secret,
    };
  }
  const threadId = note.type === THREAD_NOTE_TYPE ? note.discussion_id || undefined : undefined;
  if (!parsed.isCommand && !threadId) return ignore('not-a-command', parsed.reason);
  if (!found.ref) return ignore('no-ref', 'the project has no default branch to run on');
  const origin = originOf(event, { target: found.target, ref: found.ref }, authorId);
  if (!parsed.isCommand) {
    return { kind: 'reply', reply: { ...origin, discussionId: threadId! }, detail: parsed.reason };
  }
  const thread = diffThreadOf(event);
  // in a diff thread, an instruction or the prefix alone asks for the change the thread is about
  if (thread && (parsed.command === 'run' || parsed.bare)) {
    return {
      kind: 'command',
      request: { ...origin, command: 'run', instruction: parsed.instruction, thread },
    };
  }
  return {
    kind: 'command',
    request: { ...origin, command: parsed.command, instruction: parsed.instruction },
  };
}
