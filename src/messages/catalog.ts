/**
 * One keyed message catalog for every fixed text mr-agent posts (issue #23):
 * `en.ts` defines the keys, `ja.ts` must translate every one of them (the
 * type says so; a test checks it at run time too). Placeholders are
 * `{name}`; a message with `one`/`other` forms is picked by `{count}` through
 * `Intl.PluralRules`. Number values are formatted for the language.
 */
import { en } from './en.ts';
import { ja } from './ja.ts';
import { LOCALES, type Language } from './language.ts';

export type { Message, MessageKey } from './en.ts';
import type { Message, MessageKey } from './en.ts';

export const CATALOGS: Readonly<Record<Language, Readonly<Record<MessageKey, Message>>>> = {
  en,
  ja,
};

export type MessageParams = Readonly<Record<string, string | number>>;

const pluralRules = new Map<Language, Intl.PluralRules>();

function pluralForm(message: Message, language: Language, count: number): string {
  if (typeof message === 'string') return message;
  let rules = pluralRules.get(language);
  if (!rules) {
    rules = new Intl.PluralRules(LOCALES[language]);
    pluralRules.set(language, rules);
  }
  return rules.select(count) === 'one' ? message.one : message.other;
}

/** The text of `key` in `language`, placeholders filled. An unknown placeholder is a bug. */
export function t(language: Language, key: MessageKey, params: MessageParams = {}): string {
  const message = CATALOGS[language][key];
  const count = typeof params.count === 'number' ? params.count : 0;
  const number = new Intl.NumberFormat(LOCALES[language]);
  return pluralForm(message, language, count).replace(/\{(\w+)\}/g, (_all, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`internal: message ${key} needs {${name}}`);
    return typeof value === 'number' ? number.format(value) : value;
  });
}

/** `t` bound to one language: `const m = messages('ja'); m('state.complete')`. */
export type Translate = (key: MessageKey, params?: MessageParams) => string;

export function messages(language: Language): Translate {
  return (key, params) => t(language, key, params);
}
