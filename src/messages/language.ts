/**
 * The languages mr-agent writes its notes in: English and
 * Japanese. `auto` follows the language people wrote the request in, so a
 * Japanese comment (or a Japanese review thread answered by a bare
 * `/agent`) gets Japanese notes.
 */
export const LANGUAGES = ['en', 'ja'] as const;
export type Language = (typeof LANGUAGES)[number];
export type LanguageSetting = 'auto' | Language;

/** BCP 47 tags for `Intl`. */
export const LOCALES: Readonly<Record<Language, string>> = { en: 'en-US', ja: 'ja-JP' };

/** The language's own English name, for the prompt instruction (prompts are English). */
export const LANGUAGE_NAMES: Readonly<Record<Language, string>> = {
  en: 'English',
  ja: 'Japanese',
};

const KANA = /[\p{Script=Hiragana}\p{Script=Katakana}]/gu;
const HAN = /\p{Script=Han}/gu;
const LATIN = /\p{Script=Latin}/gu;

/** Code spans, fenced blocks and URLs say nothing about the writer's language. */
function prose(text: string): string {
  return text
    .replace(/(`{3,}|~{3,})[\s\S]*?(\1|$)/g, ' ')
    .replace(/`[^`\n]*`/g, ' ')
    .replace(/\bhttps?:\/\/\S+/g, ' ')
    .replace(/^\s*\/\S+/gm, ' ');
}

/**
 * The language a request is written in: Japanese when its prose has kana, or
 * when Han characters outnumber Latin letters; English otherwise.
 */
export function detectLanguage(text: string): Language {
  const body = prose(text);
  if ((body.match(KANA) ?? []).length > 0) return 'ja';
  const han = (body.match(HAN) ?? []).length;
  const latin = (body.match(LATIN) ?? []).length;
  return han > 0 && han >= latin ? 'ja' : 'en';
}

/** `notes.language`: a fixed language, or (`auto`) the request's. */
export function resolveLanguage(setting: LanguageSetting, requestText: string): Language {
  return setting === 'auto' ? detectLanguage(requestText) : setting;
}

/** Whether a text has words of its own: letters outside code, links and command lines. */
export function hasWords(text: string): boolean {
  return /\p{L}/u.test(prose(text));
}

/**
 * The notes' language of a run, decided once: a fixed `notes.language`, or
 * (`auto`) the language of the first of the people's texts that has words —
 * the caller lists them most telling first (the instruction, the threads the
 * run answers, the merge request or issue); English when none has.
 */
export function decideLanguage(setting: LanguageSetting, texts: readonly string[]): Language {
  if (setting !== 'auto') return setting;
  const said = texts.find(hasWords);
  return said === undefined ? 'en' : detectLanguage(said);
}

/**
 * The language an answer to one comment is written in: a fixed
 * `notes.language`; with `auto` the comment's own, or the run's when the
 * comment has no words to tell by.
 */
export function commentLanguage(
  setting: LanguageSetting,
  comment: string,
  runLanguage: Language,
): Language {
  if (setting !== 'auto') return setting;
  return hasWords(comment) ? detectLanguage(comment) : runLanguage;
}

/** What `runLanguage` reads of a run (its context). */
interface RunLanguageSource {
  deps: { language?: Language | undefined };
  config: { notes: { language: LanguageSetting } };
  task: { title: string };
}

/**
 * The language a run writes its notes in: the one the composition decided
 * for it; for a run built without one, `notes.language` (`auto`: the task's).
 */
export function runLanguage(run: RunLanguageSource): Language {
  return run.deps.language ?? resolveLanguage(run.config.notes.language, run.task.title);
}
