/**
 * Every note kind mr-agent posts, one line each. A note kind lives in one
 * file: its renderer and its own texts (`defineNote`); this list is how the
 * rest finds it — the gallery (test/report/gallery.ts: golden files,
 * GitLab-Markdown checks, screenshots), the catalog checks (every key in
 * every language, no key defined twice) and docs/notes.md. See "Add a note"
 * in docs/architecture.md.
 */
import { CATALOGS, type Message } from '../../messages/catalog.ts';
import { LANGUAGES, type Language } from '../../messages/language.ts';
import { PROGRESS_NOTE } from '../progress/render.ts';
import { CLARIFICATION_NOTE } from './clarification-note.ts';
import { ENVIRONMENT_FAILURE_NOTE } from './environment-failure-note.ts';
import { HUMAN_INTERVENTION_NOTE } from './human-intervention-note.ts';
import { PATCH_NOTE } from './patch-note.ts';
import { REPLY_NOTE } from './reply-note.ts';
import { REVIEW_NOTE } from './review-note.ts';
import { SUMMARY_NOTE } from './summary-note.ts';
import { THREAD_ANSWER_NOTE } from './thread-answer-note.ts';

/** In the order the gallery and docs/notes.md show them. */
export const NOTES = [
  PROGRESS_NOTE,
  SUMMARY_NOTE,
  CLARIFICATION_NOTE,
  HUMAN_INTERVENTION_NOTE,
  ENVIRONMENT_FAILURE_NOTE,
  PATCH_NOTE,
  REPLY_NOTE,
  REVIEW_NOTE,
  THREAD_ANSWER_NOTE,
] as const;

export type NoteName = (typeof NOTES)[number]['name'];

/**
 * The whole catalog in one language: the shared keys and every note kind's
 * own. A key defined twice is an error: each note's texts are its own.
 */
export function wholeCatalog(language: Language): Readonly<Record<string, Message>> {
  const whole: Record<string, Message> = { ...CATALOGS[language] };
  for (const note of NOTES) {
    for (const [key, message] of Object.entries(note.messages[language])) {
      if (Object.hasOwn(whole, key))
        throw new Error(`internal: message ${key} of the ${note.name} note is defined twice`);
      whole[key] = message;
    }
  }
  return whole;
}

/** `wholeCatalog` for every language. */
export function wholeCatalogs(): Readonly<Record<Language, Readonly<Record<string, Message>>>> {
  return Object.fromEntries(LANGUAGES.map((l) => [l, wholeCatalog(l)])) as Record<
    Language,
    Record<string, Message>
  >;
}
