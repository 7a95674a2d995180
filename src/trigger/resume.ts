import type { Discussion } from '../gitlab/port.ts';
import { pausedQuestionFor, type PausedQuestion } from '../replan/resume.ts';
import type { CommandRequest, CommandTarget, ReplyCandidate } from './note-rules.ts';

/**
 * A reply that resumes a paused run (SPEC F4, seed 003 §10.2). A run with
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
