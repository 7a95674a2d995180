import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import {
  CATALOGS,
  defineMessages,
  messages,
  type MessageBlock,
} from '../../../src/messages/catalog.ts';
import { LANGUAGES } from '../../../src/messages/language.ts';
import { PATCH_NOTE } from '../../../src/report/notes/patch-note.ts';
import { NOTES, wholeCatalog } from '../../../src/report/notes/registry.ts';
import { gallery } from '../gallery.ts';

describe('report/notes/registry: a note kind is one file and one registry line', () => {
  it('every note kind is registered once, by its own name', () => {
    const names = NOTES.map((n) => n.name);
    expect(new Set(names).size).to.equal(names.length);
    expect(names).to.include.members(['progress', 'patch', 'clarification', 'replies']);
  });

  it("a note kind's own texts are not in the shared catalog and belong to no other note", () => {
    for (const language of LANGUAGES) {
      const whole = wholeCatalog(language);
      const own = NOTES.reduce((n, note) => n + Object.keys(note.messages[language]).length, 0);
      expect(own, language).to.be.greaterThan(50);
      expect(Object.keys(whole).length, language).to.equal(
        Object.keys(CATALOGS[language]).length + own,
      );
      for (const note of NOTES)
        for (const key of Object.keys(note.messages[language]))
          expect(Object.hasOwn(CATALOGS[language], key), `${note.name} ${key}`).to.equal(false);
    }
  });

  it('H1 a note reads its own texts and the shared ones through one typed translator', () => {
    const ja = messages('ja', PATCH_NOTE.messages);
    expect(ja('patch.heading', { branch: '`main`' })).to.contain(
      '`main` にプッシュできませんでした',
    );
    expect(ja('next.label')).to.equal(messages('ja')('next.label'));
    expect(() => ja('patch.line', { branch: 'main' })).to.throw('{reason}');
  });

  it('defineMessages: the Japanese block must carry exactly the English keys (checked by the type)', () => {
    const complete: MessageBlock<'toy.a'> = defineMessages({
      en: { 'toy.a': 'A' },
      ja: { 'toy.a': 'エー' },
    });
    // @ts-expect-error a Japanese text is missing
    defineMessages({ en: { 'toy.a': 'A', 'toy.b': 'B' }, ja: { 'toy.a': 'エー' } });
    // @ts-expect-error a Japanese key the English block does not have
    defineMessages({ en: { 'toy.a': 'A' }, ja: { 'toy.a': 'エー', 'toy.c': 'シー' } });
    expect(messages('en', complete)('toy.a')).to.equal('A');
  });

  it('H1 the gallery shows every registered note kind, in the order of the registry', () => {
    const names = [...gallery('en').keys()];
    const firstOf = (prefix: string) => names.findIndex((n) => n.startsWith(prefix));
    const order = [
      'progress',
      'summary',
      'clarification',
      'human-intervention',
      'environment-failure',
      'patch',
      'status',
    ];
    expect(order.map(firstOf)).to.deep.equal([...order.map(firstOf)].sort((a, b) => a - b));
    expect(order.map(firstOf)).to.not.include(-1);
    expect(NOTES.map((n) => n.name)).to.deep.equal([
      'progress',
      'summary',
      'clarification',
      'human-intervention',
      'environment-failure',
      'patch',
      'replies',
      'review',
      'thread-answer',
    ]);
  });

  it('docs/notes.md lists every registered note kind with what it is for', () => {
    const doc = readFileSync('docs/notes.md', 'utf8');
    for (const note of NOTES)
      expect(doc, note.name).to.contain(`| \`${note.name}\` | ${note.purpose} |`);
  });
});
