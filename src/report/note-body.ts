/**
 * The last steps every note body goes through before it leaves the process
 * (see docs/security.md): secrets redacted, quick actions escaped, size truncated
 * below GitLab's limit. Redaction comes first, so escaping cannot split a
 * secret; truncation comes last, so the size holds for the final text.
 */
import type { Redactor } from '../log/redact.ts';
import { escapeQuickActions, NOTE_MAX_CHARS, truncateNote } from './markdown.ts';
import type { NoteOptions, NoteTarget } from '../core/note-target.ts';

export interface NoteBodyOptions {
  redactor: Redactor;
  /** Defaults to NOTE_MAX_CHARS (900,000). */
  maxChars?: number;
  /** Where the full text is, named when the body is truncated. */
  fullTextHint?: string;
}

export function prepareNoteBody(body: string, options: NoteBodyOptions): string {
  const escaped = escapeQuickActions(options.redactor.redact(body));
  return truncateNote(escaped, {
    maxChars: options.maxChars ?? NOTE_MAX_CHARS,
    fullTextHint: options.fullTextHint,
  });
}

/** Posts a one-off note (replan decision, clarification, summary …) through the body pipeline. */
export async function postNote(
  target: NoteTarget,
  body: string,
  options: NoteBodyOptions & NoteOptions,
): Promise<{ id: string; url?: string }> {
  const prepared = prepareNoteBody(body, options);
  if (options.replyTo !== undefined)
    return target.createNote(prepared, { replyTo: options.replyTo });
  return options.thread
    ? target.createNote(prepared, { thread: true })
    : target.createNote(prepared);
}
