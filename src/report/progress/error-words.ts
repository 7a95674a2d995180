/**
 * A failure in the note's language. The error's own text
 * comes from the code, in English: a note in another language shows it as
 * code after a translated label, unless it is already in that language. The
 * hint is the catalog's (its key, else the error class's hint), so the
 * **Next:** line never falls back to English in a Japanese note.
 */
import { CATALOGS, type Translate } from '../../messages/catalog.ts';
import type { MessageKey } from '../../messages/en.ts';
import { detectLanguage, type Language } from '../../messages/language.ts';
import type { ErrorFacts } from '../../core/progress/model.ts';
import { inlineCode, oneLine, safeProse } from '../markdown.ts';

/** What of the note's voice (headline.ts) is used here. */
interface Voice {
  language: Language;
  m: Translate;
}

function hintKey(key: string | undefined): MessageKey | undefined {
  return key?.startsWith('hint.') && key in CATALOGS.en ? (key as MessageKey) : undefined;
}

/** The failed note's cause, bold; in English in another language's note as code. */
export function causeText(text: string, v: Voice, fromError: boolean): string {
  const line = oneLine(safeProse(text), 300);
  if (!line) return '**?**';
  if (fromError && v.language !== 'en' && detectLanguage(line) !== v.language)
    return `**${v.m('facts.errorLabel')}** ${inlineCode(line)}`;
  return `**${line.replace(/\*/g, '\\*')}**`;
}

/** What to do about the error, in the note's language; undefined when nothing is known. */
export function hintText(error: ErrorFacts, v: Voice): string | undefined {
  const keyed = hintKey(error.hintKey);
  if (keyed) return v.m(keyed);
  if (error.hint && (v.language === 'en' || detectLanguage(error.hint) === v.language))
    return oneLine(safeProse(error.hint), 300);
  if (v.language === 'en') return undefined;
  const byClass = hintKey(error.kind ? `hint.class.${error.kind}` : undefined);
  return byClass ? v.m(byClass) : error.hint ? v.m('hint.jobLog') : undefined;
}
