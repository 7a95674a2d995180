/**
 * Reviews in a merge request's diff, as GitLab documents them: the diff
 * versions (doc/api/merge_requests.md, `GET …/versions`), threads on diff
 * lines (doc/api/discussions.md: `position[…]`, `line_range`, resolving a
 * thread) and suggestions applied as commits on the source branch
 * (doc/api/suggestions.md).
 */
import { DEVELOPER, levelOf, mergeRequestOf, projectOf, requireCanComment } from './access.ts';
import { commitFiles, diffFiles, fileDiff, mergeBase, readBlob, revParse } from './git.ts';
import {
  forbidden,
  HttpError,
  json,
  missing,
  notFound,
  route,
  stringParam,
  type Ctx,
  type Reply,
  type Route,
} from './http.ts';
import type { MergeRequestRec, ProjectRec } from './records.ts';
import type { Renderer } from './render.ts';
import {
  diffLines,
  parseSuggestionBlocks,
  type LineRef,
  type PositionRec,
  type SuggestionRec,
  type VersionRec,
} from './review-state.ts';

/**
 * GitLab's answer to a diff note whose position names no line of the diff:
 * the note is invalid (no line code), and the discussions API answers
 * `bad_request!("Note #{note.errors.messages}")`.
 */
export const POSITION_NOT_IN_DIFF =
  '400 Bad request - Note {:line_code=>["can\'t be blank", "must be a valid line code"]}';

async function headOf(ctx: Ctx, mr: MergeRequestRec, project: ProjectRec) {
  const source = ctx.model.projects.get(mr.sourceProjectId) ?? project;
  const ref =
    source.id === project.id
      ? `refs/heads/${mr.sourceBranch}`
      : await ctx.model.updateMergeRequestRef(mr);
  return revParse(project.repoDir, ref);
}

/**
 * The merge request's versions, with a new one when its source branch moved
 * since the last (GitLab makes one per push; the stand-in notices a push when
 * it is next asked, since deliveries push straight into its repositories).
 */
export async function syncVersions(
  ctx: Ctx,
  mr: MergeRequestRec,
  project: ProjectRec,
): Promise<VersionRec[]> {
  const review = ctx.model.review;
  const list = review.versionsOf(mr.id);
  const head = await headOf(ctx, mr, project);
  const start = await revParse(project.repoDir, `refs/heads/${mr.targetBranch}`);
  if (!head || !start || list.at(-1)?.headSha === head) return list;
  const base = (await mergeBase(project.repoDir, start, head)) ?? start;
  const files = await diffFiles(project.repoDir, start, head);
  const version: VersionRec = {
    id: ctx.model.nextId(),
    mergeRequestId: mr.id,
    headSha: head,
    baseSha: base,
    startSha: start,
    createdAt: ctx.model.now(),
    files: files.length,
  };
  review.versions.set(mr.id, [...list, version]);
  return review.versionsOf(mr.id);
}

function renderVersion(v: VersionRec) {
  return {
    id: v.id,
    head_commit_sha: v.headSha,
    base_commit_sha: v.baseSha,
    start_commit_sha: v.startSha,
    created_at: v.createdAt,
    merge_request_id: v.mergeRequestId,
    state: 'collected',
    real_size: String(v.files),
  };
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;
function lineNumber(value: unknown): number | null {
  if (value === undefined || value === null || value === '') return null;
  const n = Number(value);
  if (!Number.isInteger(n)) throw new HttpError(400, { error: 'position[new_line] is invalid' });
  return n;
}

function lineRef(value: unknown): LineRef {
  const raw = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  const type = raw.type === 'new' || raw.type === 'old' ? raw.type : null;
  return {
    lineCode: text(raw.line_code) ?? '',
    type,
    oldLine: lineNumber(raw.old_line),
    newLine: lineNumber(raw.new_line),
  };
}

/** The position's required fields, as Grape checks them before the note is built. */
function readPosition(ctx: Ctx): Record<string, unknown> {
  const raw = ctx.input.position;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new HttpError(400, { error: 'position is invalid' });
  const p = raw as Record<string, unknown>;
  for (const key of ['base_sha', 'start_sha', 'head_sha', 'position_type'])
    if (!text(p[key])) throw missing(`position[${key}]`);
  if (!['text', 'image'].includes(String(p.position_type)))
    throw new HttpError(400, { error: 'position[position_type] does not have a valid value' });
  if (p.position_type === 'image')
    throw new HttpError(400, { message: '400 Bad request - the stand-in has no image diffs' });
  return p;
}

/** The note's position, or GitLab's 400 when it names no line of the diff between its shas. */
async function validPosition(ctx: Ctx, project: ProjectRec): Promise<PositionRec> {
  const p = readPosition(ctx);
  const oldPath = text(p.old_path) ?? text(p.new_path);
  const newPath = text(p.new_path) ?? oldPath;
  const oldLine = lineNumber(p.old_line);
  const newLine = lineNumber(p.new_line);
  const refused = new HttpError(400, { message: POSITION_NOT_IN_DIFF });
  if (!oldPath || !newPath || (oldLine === null && newLine === null)) throw refused;
  const diff = await fileDiff(project.repoDir, String(p.base_sha), String(p.head_sha), {
    oldPath,
    newPath,
  });
  const onDiff = diffLines(diff ?? '').some((l) => l.oldLine === oldLine && l.newLine === newLine);
  if (!onDiff) throw refused;
  const range = p.line_range as Record<string, unknown> | undefined;
  return {
    baseSha: String(p.base_sha),
    startSha: String(p.start_sha),
    headSha: String(p.head_sha),
    oldPath,
    newPath,
    positionType: 'text',
    oldLine,
    newLine,
    lineRange:
      range && typeof range === 'object'
        ? { start: lineRef(range.start), end: lineRef(range.end) }
        : null,
  };
}

/** GitLab parses a diff note's suggestion blocks into suggestions, read against the head's file. */
async function addSuggestions(
  ctx: Ctx,
  project: ProjectRec,
  mr: MergeRequestRec,
  noteId: number,
  body: string,
  position: PositionRec,
): Promise<void> {
  if (position.newLine === null) return;
  const blob = await readBlob(project.repoDir, position.headSha, position.newPath);
  if (!blob) return;
  const lines = blob.toString('utf8').split('\n');
  for (const block of parseSuggestionBlocks(body)) {
    const fromLine = position.newLine - block.above;
    const toLine = position.newLine + block.below;
    if (fromLine < 1 || toLine > lines.length) continue;
    ctx.model.review.suggestions.push({
      id: ctx.model.nextId(),
      noteId,
      mergeRequestId: mr.id,
      path: position.newPath,
      fromLine,
      toLine,
      fromContent: `${lines.slice(fromLine - 1, toLine).join('\n')}\n`,
      toContent: block.content,
      applied: false,
      commitId: null,
    });
  }
}

/**
 * `POST …/merge_requests/:iid/discussions` with a `position`: a thread on a
 * diff line (a DiffNote). `createNote` is the notes routes' own note creation
 * (permissions, quick actions, body limits).
 */
export async function createDiffDiscussion(
  ctx: Ctx,
  render: Renderer,
  createNote: (ctx: Ctx) => Reply,
): Promise<Reply> {
  const project = projectOf(ctx);
  requireCanComment(ctx, project);
  const mr = mergeRequestOf(ctx, project);
  await syncVersions(ctx, mr, project);
  const position = await validPosition(ctx, project);
  const reply = createNote(ctx);
  const created = reply.json as { id?: number } | undefined;
  const rec = created?.id ? ctx.model.notes.find((n) => n.id === created.id) : undefined;
  if (!rec) return reply;
  ctx.model.discussions.get(rec.discussionId)!.individual = false;
  ctx.model.review.positions.set(rec.discussionId, position);
  await addSuggestions(ctx, project, mr, rec.id, rec.body, position);
  return json(201, render.discussion(rec.discussionId, [rec]));
}

function renderSuggestion(s: SuggestionRec, applicable: boolean) {
  return {
    id: s.id,
    from_line: s.fromLine,
    to_line: s.toLine,
    // `applicable` is the documented name; `appliable` the older one client schemas still read
    applicable,
    appliable: applicable,
    applied: s.applied,
    from_content: s.fromContent,
    to_content: s.toContent,
  };
}

/** Why GitLab would not apply the suggestion now; undefined when it applies. */
function inapplicableReason(
  s: SuggestionRec,
  mr: MergeRequestRec,
  current: string[] | undefined,
): string | undefined {
  if (s.applied) return "Can't apply this suggestion.";
  if (mr.state === 'merged')
    return 'This merge request was merged. To apply this suggestion, edit this file directly.';
  if (mr.state === 'closed')
    return 'This merge request is closed. To apply this suggestion, edit this file directly.';
  if (!current) return "Can't apply as the source branch was deleted.";
  const now = `${current.slice(s.fromLine - 1, s.toLine).join('\n')}\n`;
  if (now !== s.fromContent)
    return s.fromLine === s.toLine
      ? "Can't apply as this line was changed in a more recent version."
      : "Can't apply as these lines were changed in a more recent version.";
  if (s.fromContent === s.toContent) return 'This suggestion already matches its content.';
  return undefined;
}

async function applySuggestion(ctx: Ctx): Promise<Reply> {
  const s = ctx.model.review.suggestions.find((x) => x.id === Number(ctx.params.id));
  if (!s) throw notFound();
  const mr = ctx.model.mergeRequests.find((m) => m.id === s.mergeRequestId)!;
  const project = ctx.model.projects.get(mr.projectId)!;
  const source = ctx.model.projects.get(mr.sourceProjectId) ?? project;
  if (levelOf(ctx, source) < DEVELOPER) throw forbidden();
  const head = await revParse(source.repoDir, `refs/heads/${mr.sourceBranch}`);
  const blob = head ? await readBlob(source.repoDir, head, s.path) : undefined;
  const current = blob?.toString('utf8').split('\n');
  const reason = inapplicableReason(s, mr, current);
  if (reason || !current) throw new HttpError(400, { message: reason });
  const content = [
    ...current.slice(0, s.fromLine - 1),
    ...s.toContent.replace(/\n$/, '').split('\n'),
    ...current.slice(s.toLine),
  ];
  const message = stringParam(ctx, 'commit_message') ?? 'Apply 1 suggestion(s) to 1 file(s)';
  s.commitId = await commitFiles(
    source.repoDir,
    mr.sourceBranch,
    { [s.path]: content.join('\n') },
    { message },
  );
  s.applied = true;
  // applying a suggestion resolves its thread
  const note = ctx.model.notes.find((n) => n.id === s.noteId);
  if (note)
    ctx.model.review.resolved.set(note.discussionId, {
      byUserId: ctx.user!.id,
      at: ctx.model.now(),
    });
  return json(200, renderSuggestion(s, false));
}

/** `PUT …/discussions/:discussion_id?resolved=true|false`. */
function resolveDiscussion(ctx: Ctx, render: Renderer): Reply {
  const project = projectOf(ctx);
  const mr = mergeRequestOf(ctx, project);
  const id = ctx.params.discussion_id!;
  const notes = ctx.model.notesOf('MergeRequest', mr.id).filter((n) => n.discussionId === id);
  if (notes.length === 0) throw notFound('Discussion');
  const resolved = stringParam(ctx, 'resolved', true)!;
  if (!['true', 'false', '1', '0'].includes(resolved))
    throw new HttpError(400, { error: 'resolved is invalid' });
  // GitLab: members who can push, and the merge request's author, resolve threads
  const may = levelOf(ctx, project) >= DEVELOPER || mr.authorId === ctx.user!.id;
  const thread = ctx.model.discussions.get(id)?.individual === false;
  if (!may || !thread || notes[0]!.system) throw forbidden();
  if (resolved === 'true' || resolved === '1')
    ctx.model.review.resolved.set(id, { byUserId: ctx.user!.id, at: ctx.model.now() });
  else ctx.model.review.resolved.delete(id);
  return json(200, render.discussion(id, notes));
}

export function reviewRoutes(render: Renderer): Route[] {
  return [
    route('GET', '/projects/:id/merge_requests/:iid/versions', async (ctx) => {
      const project = projectOf(ctx);
      const mr = mergeRequestOf(ctx, project);
      const versions = await syncVersions(ctx, mr, project);
      return json(200, [...versions].reverse().map(renderVersion));
    }),
    route('GET', '/projects/:id/merge_requests/:iid/versions/:version_id', async (ctx) => {
      const project = projectOf(ctx);
      const mr = mergeRequestOf(ctx, project);
      const versions = await syncVersions(ctx, mr, project);
      const version = versions.find((v) => v.id === Number(ctx.params.version_id));
      if (!version) throw notFound('Merge Request Diff');
      const diffs = await diffFiles(project.repoDir, version.startSha, version.headSha);
      return json(200, { ...renderVersion(version), commits: [], diffs });
    }),
    route('PUT', '/projects/:id/merge_requests/:iid/discussions/:discussion_id', (ctx) =>
      resolveDiscussion(ctx, render),
    ),
    route('PUT', '/suggestions/:id/apply', (ctx) => applySuggestion(ctx)),
  ];
}
