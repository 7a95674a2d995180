import type { Discussion } from '../core/gitlab-port.ts';
import { parseMarker } from '../report/marker.ts';
import { pausedQuestionFor, type PausedQuestion } from '../phases/replan/resume.ts';
import type { CommandRequest, CommandTarget, ReplyCandidate } from './note-rules.ts';

/**
 * A reply that resumes a paused run. A run with
 * `auto_assume_timeout_minutes: 0` stops on its ❓ question (marker state
 * `awaiting_answer`). A later comment in that thread is no command, but it
 * answers the question: the trigger reads the thread and, when it starts with
 * the paused question, turns the reply into a `resume` request, which then
 * goes through the same access check, 👀 claim and "already running" rules as
 * a command (dispatch.ts).
 */

/** Reads one thread of an MR or issue; undefined when it does not exist (any more). */
export type ThreadLookup = (
  projectId: number,
  target: CommandTarget,
  discussionId: string,
) => Promise<Discussion | undefined>;

export type ReplyResolution =
  | { kind: 'resume'; request: CommandRequest & { command: 'resume' } }
  | { kind: 'not-a-resume'; detail: string };

/** The `resume` request for a reply below the paused question. */
export function resumeRequest(
  reply: ReplyCandidate,
  question: PausedQuestion,
): CommandRequest & { command: 'resume' } {
  return {
    ...reply,
    command: 'resume',
    instruction: '',
    resume: {
      discussionId: question.discussionId,
      questionNoteId: question.noteId,
      taskId: question.marker.task,
      jobId: question.marker.job,
    },
  };
}

/**
 * Whether `reply` answers a paused ❓ question of the agent (`selfId`, when
 * known, must have posted it). One API call: the reply's thread.
 */
export async function resolveReply(
  reply: ReplyCandidate,
  lookup: ThreadLookup,
  selfId?: number,
): Promise<ReplyResolution> {
  const discussion = await lookup(reply.projectId, reply.target, reply.discussionId);
  if (!discussion) {
    return { kind: 'not-a-resume', detail: `thread ${reply.discussionId} was not found` };
  }
  const question = pausedQuestionFor(discussion, reply.noteId, selfId);
  if (!question) {
    return {
      kind: 'not-a-resume',
      detail: 'a reply in a thread that is not a ❓ question awaiting an answer',
    };
  }
  return {
    kind: 'resume',
    request: resumeRequest(reply, question),
  };
}

/**
 * Whether a thread is one of the agent's ❓ questions, in any state: a reply
 * there may be (or have been) a resume. The "already running" look-up counts
 * such reply pipelines of the zero-infrastructure trigger as agent runs while
 * they are active — a resumed run settles its question, so the paused state
 * alone cannot tell.
 */
export function isQuestionThread(discussion: Discussion, selfId?: number): boolean {
  const first = discussion.notes[0];
  if (!first || (selfId !== undefined && first.author.id !== selfId)) return false;
  return parseMarker(first.body)?.kind === 'clarification';
}
