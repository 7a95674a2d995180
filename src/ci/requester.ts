/**
 * Who asked. By username, for the @mention of the ❓ and 🙋 notes (GitLab
 * then adds a To-Do for them), and for the user-config API, which answers for the user who asked.
 * A comment's author comes from the comment itself (`MR_AGENT_NOTE_ID` in the
 * job's one listing of the threads, or the `TRIGGER_PAYLOAD` event's user). A
 * run started from "Run pipeline" or the API is the pipeline's user
 * (`GITLAB_USER_LOGIN`). A triggered pipeline's user is the trigger token's
 * owner, not the commenter, so it is never taken for one.
 */
import type { ConfigRequester } from '../config/load.ts';
import type { JobReads } from '../gitlab/job-reads.ts';
import type { CiContext } from './context.ts';
import type { CiRequest } from './request.ts';

/** Pipeline sources whose `GITLAB_USER_LOGIN` is the person who asked. */
const ASKED_BY_PIPELINE_USER = new Set(['web', 'api']);

/** The request with the requester's username, when it can be known. */
export async function withRequester(
  request: CiRequest,
  context: CiContext,
  reads: Pick<JobReads, 'notes'>,
): Promise<CiRequest> {
  if (request.username) return request;
  const target = request.target;
  if (request.noteId && target.kind !== 'none') {
    // the mention is a courtesy: a listing that fails leaves the note without one
    const notes = await reads.notes({ type: target.kind, iid: target.iid }).catch(() => []);
    const note = notes.find((n) => n.id === request.noteId);
    // the comment must be the requester's own (the variables carry the user id too)
    const own = note && (request.userId === undefined || note.author.id === request.userId);
    return own ? { ...request, username: note.author.username } : request;
  }
  const login = context.pipelineUser?.login;
  if (request.source !== 'note' && login && ASKED_BY_PIPELINE_USER.has(context.pipeline.source))
    return { ...request, username: login };
  return request;
}

/** Who the job acts for, for the user-config API: the request's user (see `withRequester`). */
export function requesterOf(context: CiContext, request: CiRequest): ConfigRequester {
  const userId = request.userId;
  if (request.username) return { userId, username: request.username };
  const pipelineUser = context.pipelineUser;
  if (pipelineUser?.login && (userId === undefined || pipelineUser.id === userId))
    return { userId: pipelineUser.id, username: pipelineUser.login };
  return { userId };
}
