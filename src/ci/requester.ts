import type { ConfigRequester } from '../config/load.ts';
import type { JobReads } from '../gitlab/job-reads.ts';
import type { CiContext } from './context.ts';
import type { CiRequest } from './request.ts';

/**
 * Who the job acts for, for the user-config API (seed 001 §9.3): the
 * commenter or the user who started the pipeline. The id is in the request;
 * the username comes from the comment event (TRIGGER_PAYLOAD), the pipeline's
 * user (`GITLAB_USER_LOGIN`, manual runs) or the comment itself in the job's
 * one listing of the threads (bridge runs, whose variables carry the id only).
 */
export async function requesterOf(
  context: CiContext,
  request: CiRequest,
  reads: Pick<JobReads, 'notes'>,
): Promise<ConfigRequester> {
  const userId = request.userId;
  if (request.username) return { userId, username: request.username };
  const pipelineUser = context.pipelineUser;
  if (pipelineUser?.login && (userId === undefined || pipelineUser.id === userId))
    return { userId: pipelineUser.id, username: pipelineUser.login };
  const target = request.target;
  if (request.noteId === undefined || target.kind === 'none') return { userId };
  const notes = await reads.notes({ type: target.kind, iid: target.iid }).catch(() => []);
  const note = notes.find((n) => n.id === request.noteId);
  const username = note && note.author.id === userId ? note.author.username : undefined;
  return { userId, ...(username ? { username } : {}) };
}
