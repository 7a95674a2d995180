import * as z from 'zod';
import { quoteVisible } from '../errors/visible.ts';

/**
 * The GitLab *Comments* webhook event (`X-Gitlab-Event: Note Hook`), as given
 * in GitLab's doc/user/project/integrations/webhook_events.md "Comment
 * events". Lenient: only the fields the bridge reads, unknown keys dropped,
 * optional where older GitLab versions leave a field out.
 */
const Id = z.coerce.number().int();

export const NoteHookUser = z.object({
  id: Id,
  username: z.string(),
  name: z.string().nullish(),
  /** Not in GitLab's documented payload; honoured when present. */
  bot: z.boolean().nullish(),
});
export type NoteHookUser = z.infer<typeof NoteHookUser>;

export const NoteHookProject = z.object({
  id: Id,
  default_branch: z.string().nullish(),
  path_with_namespace: z.string().nullish(),
  web_url: z.string().nullish(),
});

/**
 * Where a diff note sits (hook data `position`, GitLab's `note.position.to_h`):
 * only the fields a request names its file and lines by.
 */
export const NoteHookPosition = z.object({
  old_path: z.string().nullish(),
  new_path: z.string().nullish(),
  old_line: Id.nullish(),
  new_line: Id.nullish(),
  line_range: z
    .object({
      start: z.object({ old_line: Id.nullish(), new_line: Id.nullish() }).nullish(),
      end: z.object({ old_line: Id.nullish(), new_line: Id.nullish() }).nullish(),
    })
    .nullish(),
});
export type NoteHookPosition = z.infer<typeof NoteHookPosition>;

export const NoteHookAttributes = z.object({
  id: Id,
  note: z.string(),
  /** `MergeRequest`, `Issue`, `Commit` or `Snippet`. */
  noteable_type: z.string(),
  author_id: Id.nullish(),
  system: z.boolean().nullish(),
  /** `create` or `update` (GitLab 16.11+; absent before). */
  action: z.string().nullish(),
  /** The thread the note belongs to (GitLab's hook data sends the note's `discussion_id`). */
  discussion_id: z.string().nullish(),
  /**
   * The note's class: `DiscussionNote` for a note in a thread (a reply, or a
   * comment started as a thread), `DiffNote` on a diff line, null for a plain
   * comment.
   */
  type: z.string().nullish(),
  /** A diff note's place in the diff (`DiffNote`: the thread's first note and its replies). */
  position: NoteHookPosition.nullish().catch(undefined),
  url: z.string().nullish(),
  /** An internal note, visible to project members only (older GitLab: `confidential`). */
  internal: z.boolean().nullish(),
  confidential: z.boolean().nullish(),
  /** When the note was written and last changed (`2026-05-17 18:21:36 UTC` or ISO 8601). */
  created_at: z.string().nullish(),
  updated_at: z.string().nullish(),
});

export const NoteHookMergeRequest = z.object({
  iid: Id,
  source_branch: z.string(),
  target_branch: z.string().nullish(),
  source_project_id: Id.nullish(),
  target_project_id: Id.nullish(),
  state: z.string().nullish(),
});

export const NoteHookIssue = z.object({
  iid: Id,
  state: z.string().nullish(),
  confidential: z.boolean().nullish(),
});

export const NoteHookEvent = z.object({
  object_kind: z.literal('note'),
  /** `note`, or `confidential_note` for an internal note or a comment on a confidential issue. */
  event_type: z.string().nullish(),
  user: NoteHookUser,
  project_id: Id.nullish(),
  project: NoteHookProject,
  object_attributes: NoteHookAttributes,
  merge_request: NoteHookMergeRequest.nullish(),
  issue: NoteHookIssue.nullish(),
});
export type NoteHookEvent = z.infer<typeof NoteHookEvent>;

export type NoteEventParse =
  | { ok: true; event: NoteHookEvent }
  | { ok: false; reason: 'not-a-note-event' | 'invalid-payload'; detail: string };

/** Validates a decoded JSON body; says plainly why it is not a usable note event. */
export function parseNoteEvent(body: unknown): NoteEventParse {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    const got = body === null ? 'null' : Array.isArray(body) ? 'an array' : typeof body;
    return { ok: false, reason: 'not-a-note-event', detail: `expected a JSON object, got ${got}` };
  }
  const kind = (body as Record<string, unknown>).object_kind;
  if (kind !== 'note') {
    const shown =
      typeof kind === 'string' ? quoteVisible(kind) : String(JSON.stringify(kind) ?? 'nothing');
    return {
      ok: false,
      reason: 'not-a-note-event',
      detail: `object_kind is ${shown.slice(0, 80)}, not "note"`,
    };
  }
  const parsed = NoteHookEvent.safeParse(body);
  if (parsed.success) return { ok: true, event: parsed.data };
  const first = parsed.error.issues[0];
  const where = first ? first.path.join('.') : '';
  return {
    ok: false,
    reason: 'invalid-payload',
    detail: `${where || 'payload'}: ${first?.message ?? 'invalid'}`,
  };
}
