/** Notes, discussions (threads and replies) and award emoji on notes, for MRs and issues. */
import { noteableOf, projectOf, requireCanComment } from './access.ts';
import {
  forbidden,
  HttpError,
  json,
  notFound,
  paginate,
  route,
  stringParam,
  type Ctx,
  type Route,
} from './http.ts';
import { runQuickActions } from './quick-actions.ts';
import { createDiffDiscussion } from './routes-review.ts';
import type { NoteRec } from './records.ts';
import type { Renderer } from './render.ts';

/** GitLab's limit on a note body (characters). */
export const MAX_NOTE_LENGTH = 1_000_000;
const BASE = '/projects/:id/:noteables/:iid';

function validBody(ctx: Ctx): string {
  const body = stringParam(ctx, 'body', true)!;
  if ([...body].length > MAX_NOTE_LENGTH)
    throw new HttpError(400, {
      message: `400 Bad request - Note {:note=>["is too long (maximum is ${MAX_NOTE_LENGTH} characters)"]}`,
    });
  return body;
}

function noteOf(ctx: Ctx, notes: NoteRec[]): NoteRec {
  const note = notes.find((n) => n.id === Number(ctx.params.note_id));
  if (!note) throw notFound('Note');
  return note;
}

function sortNotes(ctx: Ctx, notes: NoteRec[]): NoteRec[] {
  const key = stringParam(ctx, 'order_by') === 'updated_at' ? 'updatedAt' : 'createdAt';
  const dir = stringParam(ctx, 'sort') === 'asc' ? 1 : -1;
  return [...notes].sort((a, b) =>
    a[key] < b[key] ? -dir : a[key] > b[key] ? dir : dir * (a.id - b.id),
  );
}

function createNote(ctx: Ctx, render: Renderer, discussionId?: string) {
  const project = projectOf(ctx);
  requireCanComment(ctx, project);
  const { rec } = noteableOf(ctx, project);
  const { actions, remaining } = runQuickActions(
    ctx.model.quickActions,
    rec,
    ctx.user!.id,
    validBody(ctx),
  );
  if (actions.length > 0 && remaining === '')
    return json(202, { commands_changes: {}, summary: actions.map((a) => `Ran /${a.command}`) });
  const note = ctx.model.addNote({
    on: rec,
    body: remaining,
    authorId: ctx.user!.id,
    internal: ['true', '1'].includes(String(ctx.input.internal ?? ctx.input.confidential)),
    ...(discussionId ? { discussionId } : {}),
  });
  return json(201, render.note(note));
}

function discussionsOf(notes: NoteRec[]): Map<string, NoteRec[]> {
  const groups = new Map<string, NoteRec[]>();
  for (const note of [...notes].sort((a, b) => a.id - b.id)) {
    groups.set(note.discussionId, [...(groups.get(note.discussionId) ?? []), note]);
  }
  return groups;
}

/** The same routes for merge requests and issues, with the kind kept in `params.noteables`. */
export function noteRoutes(render: Renderer): Route[] {
  return ['merge_requests', 'issues'].flatMap((kind) =>
    noteableRoutes(render).map((r) =>
      route(
        r.method,
        r.pattern.replace(':noteables', kind),
        (ctx) => {
          ctx.params.noteables = kind;
          return r.handler(ctx);
        },
        r.options,
      ),
    ),
  );
}

function noteableRoutes(render: Renderer): Route[] {
  const notesHere = (ctx: Ctx) => {
    const project = projectOf(ctx);
    const { rec, kind } = noteableOf(ctx, project);
    return { project, rec, kind, notes: ctx.model.notesOf(kind, rec.id) };
  };
  return [
    route(
      'GET',
      `${BASE}/notes`,
      (ctx) =>
        paginate(
          ctx,
          sortNotes(ctx, notesHere(ctx).notes).map((n) => render.note(n)),
        ),
      { jobToken: true },
    ),
    route(
      'GET',
      `${BASE}/notes/:note_id`,
      (ctx) => json(200, render.note(noteOf(ctx, notesHere(ctx).notes))),
      {
        jobToken: true,
      },
    ),
    route('POST', `${BASE}/notes`, (ctx) => createNote(ctx, render)),
    route('PUT', `${BASE}/notes/:note_id`, (ctx) => {
      const { project, rec, notes } = notesHere(ctx);
      requireCanComment(ctx, project);
      const note = noteOf(ctx, notes);
      if (note.authorId !== ctx.user!.id || note.system) throw forbidden();
      note.body = runQuickActions(
        ctx.model.quickActions,
        rec,
        ctx.user!.id,
        validBody(ctx),
      ).remaining;
      note.updatedAt = ctx.model.now();
      return json(200, render.note(note));
    }),
    route('GET', `${BASE}/discussions`, (ctx) => {
      const groups = discussionsOf(notesHere(ctx).notes);
      return paginate(
        ctx,
        [...groups].map(([id, notes]) => render.discussion(id, notes)),
      );
    }),
    route('GET', `${BASE}/discussions/:discussion_id`, (ctx) => {
      const id = ctx.params.discussion_id!;
      const notes = discussionsOf(notesHere(ctx).notes).get(id);
      if (!notes) throw notFound('Discussion');
      return json(200, render.discussion(id, notes));
    }),
    route('POST', `${BASE}/discussions`, (ctx) => {
      // a position makes the thread a diff note (merge requests only, as GitLab's API declares it)
      if (ctx.params.noteables === 'merge_requests' && ctx.input.position !== undefined)
        return createDiffDiscussion(ctx, render, (c) => createNote(c, render));
      const reply = createNote(ctx, render);
      const note = reply.json as { id: number } | undefined;
      const rec = note && ctx.model.notes.find((n) => n.id === note.id);
      if (!rec) return reply;
      ctx.model.discussions.get(rec.discussionId)!.individual = false;
      return json(201, render.discussion(rec.discussionId, [rec]));
    }),
    // resolving a merge request thread (`PUT …/discussions/:id`) is in routes-review.ts
    route('POST', `${BASE}/discussions/:discussion_id/notes`, (ctx) => {
      const { notes } = notesHere(ctx);
      const id = ctx.params.discussion_id!;
      if (!notes.some((n) => n.discussionId === id)) throw notFound('Discussion');
      return createNote(ctx, render, id);
    }),
    route('GET', `${BASE}/notes/:note_id/award_emoji`, (ctx) => {
      const note = noteOf(ctx, notesHere(ctx).notes);
      const awards = ctx.model.awards.filter((a) => a.noteId === note.id);
      return paginate(
        ctx,
        awards.map((a) => render.award(a, 'Note')),
      );
    }),
    route('POST', `${BASE}/notes/:note_id/award_emoji`, (ctx) => {
      const { project, notes } = notesHere(ctx);
      const note = noteOf(ctx, notes);
      if (ctx.token?.kind === 'job') throw notFound('Award Emoji');
      requireCanComment(ctx, project);
      const name = stringParam(ctx, 'name', true)!;
      const userId = ctx.user!.id;
      // GitLab: one award of a name per user and awardable; a second one is refused with a 404.
      if (
        ctx.model.awards.some((a) => a.noteId === note.id && a.userId === userId && a.name === name)
      )
        throw notFound('Award Emoji Name has already been taken');
      const award = {
        id: ctx.model.nextId(),
        noteId: note.id,
        userId,
        name,
        createdAt: ctx.model.now(),
      };
      ctx.model.awards.push(award);
      return json(201, render.award(award, 'Note'));
    }),
  ];
}
