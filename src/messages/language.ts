/**
 * The languages mr-agent writes its notes in: English and
 * Japanese. `auto` follows the language of the request that started the run,
 * so a Japanese comment gets Japanese notes.
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
