/**
 * The GitLab POSTs of the port, one request each, unchecked: the adapter
 * sends them through `CheckedWriter` (checked-write.ts), which looks for a
 * write whose answer was lost before sending it again.
 */
import { escapeQuickActions } from '../report/markdown.ts';
import {
  parseAnswer,
  toAward,
  toDiscussion,
  toMergeRequest,
  toNote,
  toPipeline,
} from './mappers.ts';
import type {
  AwardResult,
  DiffLineRef,
  DiffPosition,
  NewMergeRequest,
  Noteable,
  ProjectRef,
  TriggerRequest,
} from '../core/gitlab-port.ts';
import {
  AwardEmojiSchema,
  DiscussionSchema,
  MergeRequestSchema,
  NoteSchema,
  PipelineSchema,
} from './schemas.ts';
import { isStatus, type Api } from './gitbeaker-api.ts';

/**
 * Opens a merge request. GitLab runs the quick actions of a description
 * created through the API, so the description is escaped here, last, whoever
 * built it; a title is one line (GitLab does not read titles for
 * quick actions).
 */
export async function mergeRequest(api: Api, project: ProjectRef, request: NewMergeRequest) {
  const oneLine = request.title.replace(/\s+/g, ' ').trim();
  const title = request.draft && !/^draft:/i.test(oneLine) ? `Draft: ${oneLine}` : oneLine;
  const raw = await api.MergeRequests.create(
    project,
    request.sourceBranch,
    request.targetBranch,
    title,
    {
      description: escapeQuickActions(request.description),
      removeSourceBranch: request.removeSourceBranch ?? true,
      ...(request.labels?.length ? { labels: request.labels.join(',') } : {}),
    },
  );
  return toMergeRequest(parseAnswer(MergeRequestSchema, raw, 'new merge request'));
}

export async function note(
  api: Api,
  project: ProjectRef,
  on: Noteable,
  body: string,
  internal = false,
) {
  const options = internal ? { internal: true } : {};
  const raw =
    on.type === 'merge_request'
      ? await api.MergeRequestNotes.create(project, on.iid, body, options)
      : await api.IssueNotes.create(project, on.iid, body, options);
  return toNote(parseAnswer(NoteSchema, raw, 'new note'));
}

/** POST …/discussions: a new thread whose first note is `body` (doc/api/discussions.md). */
export async function discussion(api: Api, project: ProjectRef, on: Noteable, body: string) {
  const raw =
    on.type === 'merge_request'
      ? await api.MergeRequestDiscussions.create(project, on.iid, body)
      : await api.IssueDiscussions.create(project, on.iid, body);
  return toDiscussion(parseAnswer(DiscussionSchema, raw, 'new thread'));
}

export async function reply(
  api: Api,
  project: ProjectRef,
  on: Noteable,
  discussionId: string,
  body: string,
) {
  const raw =
    on.type === 'merge_request'
      ? await api.MergeRequestDiscussions.addNote(project, on.iid, discussionId, body)
      : await api.IssueDiscussions.addNote(project, on.iid, discussionId, body);
  return toNote(parseAnswer(NoteSchema, raw, 'reply'));
}

export async function award(
  api: Api,
  project: ProjectRef,
  on: Noteable,
  noteId: number,
  name: string,
): Promise<AwardResult> {
  try {
    const raw =
      on.type === 'merge_request'
        ? await api.MergeRequestNoteAwardEmojis.award(project, on.iid, noteId, name)
        : await api.IssueNoteAwardEmojis.award(project, on.iid, noteId, name);
    return { awarded: true, award: toAward(parseAnswer(AwardEmojiSchema, raw, 'award')) };
  } catch (error) {
    // GitLab refuses the same emoji twice from the same user: 404 "… has already been taken".
    if (isStatus(error, 404) && /has already been taken/i.test((error as Error).message))
      return { awarded: false };
    throw error;
  }
}

/** An award on the merge request or issue itself; `awarded: false` when this user already gave it. */
export async function awardTarget(
  api: Api,
  project: ProjectRef,
  on: Noteable,
  name: string,
): Promise<AwardResult> {
  try {
    const raw =
      on.type === 'merge_request'
        ? await api.MergeRequestAwardEmojis.award(project, on.iid, name)
        : await api.IssueAwardEmojis.award(project, on.iid, name);
    return { awarded: true, award: toAward(parseAnswer(AwardEmojiSchema, raw, 'award')) };
  } catch (error) {
    if (isStatus(error, 404) && /has already been taken/i.test((error as Error).message))
      return { awarded: false };
    throw error;
  }
}

export async function cancelPipeline(api: Api, project: ProjectRef, pipelineId: number) {
  const raw = await api.Pipelines.cancel(project, pipelineId);
  return toPipeline(parseAnswer(PipelineSchema, raw, `cancel pipeline ${pipelineId}`));
}

/**
 * POST /projects/:id/trigger/pipeline with the variables and inputs as form fields.
 * Not through `PipelineTriggerTokens.trigger`: gitbeaker flattens the
 * variables with `qs` without encoding and splits the result on `&` and at
 * the first line break, so a multi-line request or one holding `&` reached
 * the job cut short (MR_AGENT_TASK "fix a & b" became "fix a "). The token
 * goes in the form too, as in GitLab's own examples, not in the URL where
 * proxies and access logs keep it. Multipart fields carry line breaks as
 * CRLF (as from any browser form); readers of the variables treat CRLF as LF.
 */
export async function trigger(api: Api, project: ProjectRef, request: TriggerRequest) {
  const form = new FormData();
  form.append('token', request.token);
  form.append('ref', request.ref);
  for (const [key, value] of Object.entries(request.variables ?? {}))
    form.append(`variables[${key}]`, value);
  for (const [key, value] of Object.entries(request.inputs ?? {}))
    form.append(`inputs[${key}]`, value);
  const response = await api.PipelineTriggerTokens.requester.post(
    `projects/${encodeURIComponent(String(project))}/trigger/pipeline`,
    { body: form },
  );
  return toPipeline(parseAnswer(PipelineSchema, response.body, 'pipeline trigger'));
}

/**
 * POST …/merge_requests/:iid/discussions with a text `position`: a thread on
 * a diff line (doc/api/discussions.md, "Create a new thread in the merge
 * request diff"); `line_range` for a thread over several lines. Sent as JSON
 * through the resource's requester: gitbeaker's own `create` sends a position
 * as multipart form data, whose encoding turns every line break of the body
 * into CRLF, so a suggestion would be applied with CRLF line endings.
 */
export async function diffDiscussion(
  api: Api,
  project: ProjectRef,
  iid: number,
  body: string,
  position: DiffPosition,
) {
  const ref = (r: DiffLineRef) => ({
    line_code: r.lineCode,
    ...(r.type ? { type: r.type } : {}),
    ...(r.oldLine !== undefined ? { old_line: r.oldLine } : {}),
    ...(r.newLine !== undefined ? { new_line: r.newLine } : {}),
  });
  const wire = {
    base_sha: position.baseSha,
    start_sha: position.startSha,
    head_sha: position.headSha,
    position_type: 'text',
    old_path: position.oldPath,
    new_path: position.newPath,
    ...(position.oldLine !== undefined ? { old_line: position.oldLine } : {}),
    ...(position.newLine !== undefined ? { new_line: position.newLine } : {}),
    ...(position.lineRange
      ? { line_range: { start: ref(position.lineRange.start), end: ref(position.lineRange.end) } }
      : {}),
  };
  const resource = api.MergeRequestDiscussions;
  const path = `${encodeURIComponent(String(project))}/merge_requests/${iid}/discussions`;
  const response = await resource.requester.post(path, { body: { body, position: wire } });
  return toDiscussion(parseAnswer(DiscussionSchema, response.body, 'new diff thread'));
}
