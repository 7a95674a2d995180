/**
 * Resuming a run that stopped awaiting an answer (docs/replanning.md, "Resuming on a reply").
 *
 * 1. The paused run leaves its ❓ note with the marker state `awaiting_answer`
 *    and `.mr-agent/replan/<MR or issue>.json` with status `awaiting_answer`,
 *    the question's note id and the counters; `.mr-agent/` is the job
 *    artifact.
 * 2. A reply in that thread is not a command; the trigger asks
 *    `pausedQuestionFor(discussion, noteId)` whether the note answers a
 *    paused question, and if so starts a run for the MR/issue as it would for
 *    a command (with the question's `task` and `job` from the marker).
 * 3. The new run restores the earlier `.mr-agent/` (src/gitlab/past-runs.ts),
 *    and `createReplanHook` with the same key finds the paused state: the
 *    counters go on, the thread is read through the `AnswerSource`, and the
 *    first checkpoint plans again with the answers. Its "✅ Answered" reply
 *    (marker state `answered`) settles the question: later replies in the
 *    thread resume nothing.
 *
 * The trigger side (src/commands/resume.ts) turns such a reply into a
 * `resume` request.
 */
import type { Discussion } from '../../core/gitlab-port.ts';
import { parseMarker, type NoteMarker } from '../../report/marker.ts';

export interface PausedQuestion {
  discussionId: string;
  /** The ❓ note. */
  noteId: number;
  marker: NoteMarker;
}

const byAgent = (note: Discussion['notes'][number], selfId?: number) =>
  selfId === undefined || note.author.id === selfId;

/**
 * The paused ❓ question a discussion starts with, when it does (posted by
 * `selfId` when known). A question a resumed run has acknowledged (its
 * "✅ Answered" reply carries the marker `clarification … state=answered`) is
 * settled, although the question's own marker still says `awaiting_answer`.
 */
export function pausedQuestionIn(
  discussion: Discussion,
  selfId?: number,
): PausedQuestion | undefined {
  const [first, ...replies] = discussion.notes;
  if (!first || !byAgent(first, selfId)) return undefined;
  const marker = parseMarker(first.body);
  if (marker?.kind !== 'clarification' || marker.state !== 'awaiting_answer') return undefined;
  const settled = replies.some((note) => {
    const ack = byAgent(note, selfId) ? parseMarker(note.body) : undefined;
    return ack?.kind === 'clarification' && ack.state !== 'awaiting_answer';
  });
  return settled ? undefined : { discussionId: discussion.id, noteId: first.id, marker };
}

/**
 * Whether note `noteId` is a reply to a paused ❓ question (a person's reply
 * below it, not the question itself and not one of the agent's own notes).
 */
export function pausedQuestionFor(
  discussion: Discussion,
  noteId: number,
  selfId?: number,
): PausedQuestion | undefined {
  const question = pausedQuestionIn(discussion, selfId);
  if (!question || question.noteId === noteId) return undefined;
  const reply = discussion.notes.find((n) => n.id === noteId);
  if (!reply || reply.system || parseMarker(reply.body)) return undefined;
  if (selfId !== undefined && reply.author.id === selfId) return undefined;
  return question;
}
