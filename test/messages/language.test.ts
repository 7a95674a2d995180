import { expect } from 'chai';
import {
  commentLanguage,
  decideLanguage,
  hasWords,
  runLanguage,
} from '../../src/messages/language.ts';

describe('messages/language: one language per run, from what people wrote', () => {
  it('O11 a text has words only outside code, links and command lines', () => {
    expect(hasWords('/agent')).to.equal(false);
    expect(hasWords('/agent\n`npm test` https://example.com/x 👍 +$2')).to.equal(false);
    expect(hasWords('```\nconst x = 1;\n```')).to.equal(false);
    expect(hasWords('足し算')).to.equal(true);
    expect(hasWords('/agent\nfix it')).to.equal(true);
  });

  it('O11 auto takes the first text with words, most telling first; English when none has', () => {
    expect(decideLanguage('auto', ['', '/agent', 'add() を直して', 'Fix add()'])).to.equal('ja');
    expect(decideLanguage('auto', ['fix add()', 'add() を直して'])).to.equal('en');
    expect(decideLanguage('auto', ['', '`x`'])).to.equal('en');
  });

  it('O11 a fixed notes.language wins over every text', () => {
    expect(decideLanguage('en', ['add() を直して'])).to.equal('en');
    expect(decideLanguage('ja', ['fix add()'])).to.equal('ja');
    expect(commentLanguage('en', 'README も直して', 'ja')).to.equal('en');
  });

  it("O11 a comment is answered in its own language, or the run's when it has no words", () => {
    expect(commentLanguage('auto', 'README も直して', 'en')).to.equal('ja');
    expect(commentLanguage('auto', 'also fix the README', 'ja')).to.equal('en');
    expect(commentLanguage('auto', '👍', 'ja')).to.equal('ja');
  });

  it('O11 a run writes in the language decided for it, not in its English task title', () => {
    const config = { notes: { language: 'auto' as const } };
    const task = { title: 'Address the review thread on src/x.ts:12' };
    expect(runLanguage({ deps: { language: 'ja' }, config, task })).to.equal('ja');
    // built without a decision (by hand): the title's language
    expect(runLanguage({ deps: {}, config, task })).to.equal('en');
  });
});
