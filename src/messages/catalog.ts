/**
 * One keyed message catalog for every fixed text mr-agent posts: `en.ts`
 * defines the shared keys, `ja.ts` must translate every one of them (the
 * type says so; a test checks it at run time too). A note kind keeps the
 * texts only it uses beside its renderer, as a `MessageBlock` declared with
 * `defineMessages` (English and Japanese, the same keys), and reads them
 * together with the shared keys through `messages(language, block)`; the note
 * registry (`src/report/notes/registry.ts`) merges every block into the
 * whole catalog for the checks. Placeholders are `{name}`; a message with
 * `one`/`other` forms is picked by `{count}` through `Intl.PluralRules`.
 * Number values are formatted for the language.
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

const numberFormats = new Map<Language, Intl.NumberFormat>();

/**
 * A number as the language writes it. Whole numbers below 1000 read the same
 * in every catalog language without `Intl` (no grouping, no fraction; a test
 * holds this against `Intl.NumberFormat`): the first `Intl` formatter a
 * process builds loads ICU's locale data, tens of milliseconds that the
 * run's first note, whose numbers are small counts, need not pay.
 */
function formatNumber(value: number, language: Language): string {
  if (Number.isInteger(value) && Math.abs(value) < 1000 && !Object.is(value, -0)) {
    return String(value);
  }
  let format = numberFormats.get(language);
  if (!format) {
    format = new Intl.NumberFormat(LOCALES[language]);
    numberFormats.set(language, format);
  }
  return format.format(value);
}

/** A message's text in `language`, placeholders filled. An unknown placeholder is a bug. */
function fill(message: Message, language: Language, key: string, params: MessageParams): string {
  const count = typeof params.count === 'number' ? params.count : 0;
  return pluralForm(message, language, count).replace(/\{(\w+)\}/g, (_all, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`internal: message ${key} needs {${name}}`);
    return typeof value === 'number' ? formatNumber(value, language) : value;
  });
}

/** The text of `key` in `language`, placeholders filled. An unknown placeholder is a bug. */
export function t(language: Language, key: MessageKey, params: MessageParams = {}): string {
  return fill(CATALOGS[language][key], language, key, params);
}

/** Texts one note kind keeps beside its renderer: the same keys in every language. */
export type MessageBlock<K extends string = string> = {
  readonly [L in Language]: Readonly<Record<K, Message>>;
};

/** The keys of a block: `BlockKey<typeof PATCH_MESSAGES>`. */
export type BlockKey<B> = B extends MessageBlock<infer K> ? K : never;

/** Declares a note kind's texts; the type makes `ja` carry exactly the keys of `en`. */
export function defineMessages<K extends string>(block: {
  en: Readonly<Record<K, Message>>;
  ja: NoInfer<Readonly<Record<K, Message>>>;
}): MessageBlock<K> {
  return block;
}

/** `t` bound to one language: `const m = messages('ja'); m('state.complete')`; with a block, its keys too. */
export type Translate<K extends string = never> = (
  key: MessageKey | K,
  params?: MessageParams,
) => string;

export function messages<K extends string = never>(
  language: Language,
  block?: MessageBlock<K>,
): Translate<K> {
  return (key, params = {}) => {
    const own = block?.[language];
    const message =
      own && Object.hasOwn(own, key) ? own[key as K] : CATALOGS[language][key as MessageKey];
    return fill(message, language, key, params);
  };
}
