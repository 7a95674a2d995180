/**
 * Who asked, by username, for the @mention of the ❓ and 🙋 notes (GitLab
 * then adds a To-Do for them). A comment's author comes from the comment
 * itself (`MR_AGENT_NOTE_ID`, or the `TRIGGER_PAYLOAD` event's user). A run
 * started from "Run pipeline" or the API is the pipeline's user
 * (`GITLAB_USER_LOGIN`). A triggered pipeline's user is the trigger token's
 * owner, not the commenter, so it is never taken for one.
 */
import type { JobReads } from '../gitlab/job-reads.ts';
import type { CiContext } from './context.ts';
import type { CiRequest } from './request.ts';

/** Pipeline sources whose `GITLAB_USER_LOGIN` is the person who asked. */
const ASKED_BY_PIPELINE_USER = new Set(['web', 'api']);

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
    const username = notes.find((n) => n.id === request.noteId)?.author.username;
    return username ? { ...request, username } : request;
  }
  const login = context.pipelineUser?.login;
  if (request.source !== 'note' && login && ASKED_BY_PIPELINE_USER.has(context.pipeline.source))
    return { ...request, username: login };
  return request;
}
