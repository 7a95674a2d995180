import { expect } from 'chai';
import { messages, t } from '../../src/messages/catalog.ts';
import { wholeCatalogs } from '../../src/report/notes/registry.ts';
import type { Message } from '../../src/messages/en.ts';
import {
  formatClockTime,
  formatCount,
  formatDateTime,
  formatDuration,
} from '../../src/messages/format.ts';
import {
  detectLanguage,
  LANGUAGES,
  LOCALES,
  resolveLanguage,
} from '../../src/messages/language.ts';

/** The shared keys and every note kind's own (src/report/notes/registry.ts). */
const CATALOGS = wholeCatalogs();

function forms(message: Message): string[] {
  return typeof message === 'string' ? [message] : [message.one, message.other];
}

function placeholders(message: Message): string[] {
  return [
    ...new Set(forms(message).flatMap((f) => [...f.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!))),
  ]
    .filter((name) => name !== 'count')
    .sort();
}

describe('messages: one keyed catalog for every note (#23)', () => {
  it('#23 every key exists in every language, with no extra key', () => {
    const keys = Object.keys(CATALOGS.en).sort();
    expect(keys.length).to.be.greaterThan(100);
    for (const language of LANGUAGES) {
      expect(Object.keys(CATALOGS[language]).sort(), language).to.deep.equal(keys);
      for (const key of keys)
        expect(
          forms(CATALOGS[language][key]!).every((f) => f.trim() !== ''),
          `${language} ${key}`,
        ).to.equal(true);
    }
  });

  it('#23 every translation uses the same placeholders as the English text', () => {
    for (const [key, message] of Object.entries(CATALOGS.en)) {
      for (const language of LANGUAGES)
        expect(placeholders(CATALOGS[language][key]!), `${language} ${key}`).to.deep.equal(
          placeholders(message),
        );
    }
  });

  it('#23 Japanese texts are Japanese: no English sentence is left untranslated', () => {
    const untranslated = Object.entries(CATALOGS.ja).filter(([key, message]) =>
      forms(message).some(
        (f) =>
          f === forms(CATALOGS.en[key]!)[0] && /[a-z]{3}/.test(f.replace(/`[^`]*`|\{\w+\}/g, '')),
      ),
    );
    expect(untranslated.map(([key]) => key)).to.deep.equal([]);
  });

  it('I1 every key of the merged catalog renders in both languages, with no placeholder left and no English template word in Japanese', () => {
    // product names, tools and identifiers a Japanese text names as they are
    const names = new Set(
      'URL HTTP xx mr-agent GitLab CI CD API Runner npm pnpm Python Node Maven LLM Webhook run command root docs security md temperature ref'.split(
        ' ',
      ),
    );
    const leaked: string[] = [];
    for (const language of LANGUAGES) {
      const m = messages(language, { en: CATALOGS.en, ja: CATALOGS.ja } as never) as (
        key: string,
        params: Record<string, string | number>,
      ) => string;
      for (const key of Object.keys(CATALOGS[language])) {
        const names_ = forms(CATALOGS[language][key]!).flatMap((f) =>
          [...f.matchAll(/\{(\w+)\}/g)].map((x) => x[1]!),
        );
        for (const count of [1, 2]) {
          const params = Object.fromEntries(names_.map((n) => [n, n === 'count' ? count : '⟨⟩']));
          const text = m(key, params);
          expect(text.trim(), `${language} ${key}`).to.not.equal('');
          expect(text, `${language} ${key}`).to.not.match(/\{\w+\}/);
          if (language !== 'ja') continue;
          const prose = text.replace(/`[^`]*`|\[[^\]]*\]\([^)]*\)/g, '');
          for (const word of prose.match(/[A-Za-z][A-Za-z'’-]+/g) ?? [])
            if (!names.has(word)) leaked.push(`${key}: ${word}`);
        }
      }
    }
    expect(leaked).to.deep.equal([]);
  });

  it('#24 plural forms follow the count; numbers are formatted for the language', () => {
    expect(t('en', 'facts.files', { count: 1 })).to.equal('1 file changed');
    expect(t('en', 'facts.files', { count: 12 })).to.equal('12 files changed');
    expect(t('en', 'details.tokens', { count: 32307 })).to.equal('32,307 tokens');
    expect(t('ja', 'details.tokens', { count: 32307 })).to.equal('32,307 トークン');
    expect(() => t('en', 'facts.pushed', { commit: 'abc' })).to.throw('{branch}');
  });

  it('#23 dates, times and durations are formatted for the locale (Intl), in UTC', () => {
    const at = Date.UTC(2024, 10, 28, 10, 5, 0);
    expect(formatDateTime(at, 'en')).to.equal('Nov 28, 2024, 10:05 UTC');
    expect(formatDateTime(at, 'ja')).to.equal('2024/11/28 10:05 UTC');
    expect(formatClockTime(at, 'ja')).to.equal('10:05 UTC');
    expect(formatDuration(90_000, 'en')).to.equal('1m 30s');
    expect(formatDuration(90_000, 'ja')).to.equal('1 分 30 秒');
    expect(formatDuration(418, 'en')).to.equal('418ms');
    expect(formatDuration(418, 'ja')).to.equal('418 ミリ秒');
    expect(formatCount(1234567, 'ja')).to.equal('1,234,567');
  });

  it('#23 the clock time of every minute of the day reads as Intl writes it, in every language (written without Intl: the first note shows it)', () => {
    for (const language of LANGUAGES) {
      const intl = new Intl.DateTimeFormat(LOCALES[language], {
        timeStyle: 'short',
        timeZone: 'UTC',
        hourCycle: 'h23',
      });
      for (let minute = 0; minute < 24 * 60; minute++) {
        const at = Date.UTC(2024, 10, 28) + minute * 60_000 + 59_999;
        expect(formatClockTime(at, language), `${language} ${minute}`).to.equal(
          `${intl.format(at)} UTC`,
        );
      }
    }
  });

  it('#24 numbers in messages read as Intl.NumberFormat writes them, small whole ones included (written without Intl)', () => {
    const values = [
      ...Array.from({ length: 2001 }, (_, i) => i - 1000),
      1234,
      -1234,
      32307,
      1234567,
      0.5,
      2.25,
      999.5,
      -0,
    ];
    for (const language of LANGUAGES) {
      const intl = new Intl.NumberFormat(LOCALES[language]);
      for (const count of values) {
        const text = t(language, 'details.repeated', { count });
        expect(text, `${language} ${count}`).to.equal(`×${intl.format(count)}`);
      }
    }
  });

  it('#23 auto follows the language of the request; a fixed setting wins', () => {
    expect(detectLanguage('/agent テストが失敗しています。修正してください')).to.equal('ja');
    expect(detectLanguage('fix the failing test')).to.equal('en');
    expect(detectLanguage('修正')).to.equal('ja');
    // code and URLs say nothing about the writer's language
    expect(detectLanguage('rename `変数` in https://example.com/ページ please')).to.equal('en');
    expect(detectLanguage('`npm test` を直してください')).to.equal('ja');
    expect(resolveLanguage('auto', 'テストを直して')).to.equal('ja');
    expect(resolveLanguage('en', 'テストを直して')).to.equal('en');
    expect(resolveLanguage('ja', 'fix it')).to.equal('ja');
  });
});
