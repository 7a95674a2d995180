import { expect } from 'chai';
import {
  escapeQuickActions,
  fence,
  hasUnescapedQuickAction,
  inlineCode,
  NOTE_MAX_CHARS,
  oneLine,
  safeProse,
  tableCell,
  truncateNote,
  ZERO_WIDTH_SPACE,
} from '../../src/report/markdown.ts';

const ZW = ZERO_WIDTH_SPACE;

describe('report/markdown', () => {
  describe('escapeQuickActions (M3)', () => {
    const cases: Array<{ name: string; input: string; expected: string }> = [
      { name: 'a bare command', input: '/merge', expected: '\\/merge' },
      {
        name: 'a command after text',
        input: 'Done.\n/approve\nok',
        expected: 'Done.\n\\/approve\nok',
      },
      { name: 'leading spaces', input: '   /close', expected: '   \\/close' },
      { name: 'a blockquote', input: '> /merge', expected: '> \\/merge' },
      { name: 'a nested blockquote', input: '>> /merge', expected: '>> \\/merge' },
      { name: 'a bullet item', input: '- /approve now', expected: '- \\/approve now' },
      { name: 'a numbered item', input: '1. /close', expected: '1. \\/close' },
      { name: 'a quoted list item', input: '> * /label ~x', expected: '> * \\/label ~x' },
      { name: 'CRLF line endings', input: 'a\r\n/merge\r\n', expected: 'a\n\\/merge\n' },
      { name: 'a lone CR (GitLab deletes CR)', input: 'a\r/merge', expected: 'a\n\\/merge' },
      { name: 'a NUL character', input: '\u0000/merge', expected: '\\/merge' },
      {
        name: 'a slash inside a line',
        input: 'see src/a.ts and /tmp',
        expected: 'see src/a.ts and /tmp',
      },
      {
        name: 'a fenced code block (kept readable)',
        input: '```sh\n/usr/bin/env node\n  /merge\n```\n/close',
        expected: `\`\`\`sh\n${ZW}/usr/bin/env node\n  ${ZW}/merge\n\`\`\`\n\\/close`,
      },
      {
        name: 'a tilde fence',
        input: '~~~\n/merge\n~~~',
        expected: `~~~\n${ZW}/merge\n~~~`,
      },
      {
        name: 'a longer fence is not closed by a shorter one',
        input: '````\n```\n/merge\n````\n/x',
        expected: `\`\`\`\`\n\`\`\`\n${ZW}/merge\n\`\`\`\`\n\\/x`,
      },
      { name: 'indented code', input: '    /merge', expected: `    ${ZW}/merge` },
      { name: 'a tab-indented line', input: '\t/merge', expected: `\t${ZW}/merge` },
    ];
    for (const c of cases) {
      it(`M3 escapes ${c.name}`, () => {
        const out = escapeQuickActions(c.input);
        expect(out).to.equal(c.expected);
        expect(hasUnescapedQuickAction(out)).to.equal(false);
      });
    }

    it('M3 is idempotent', () => {
      const once = escapeQuickActions('/merge\n```\n/x\n```\n> /y');
      expect(escapeQuickActions(once)).to.equal(once);
    });

    it('M3 an unterminated fence keeps escaping to the end', () => {
      const out = escapeQuickActions('```\n/merge\n/approve');
      expect(out).to.equal(`\`\`\`\n${ZW}/merge\n${ZW}/approve`);
    });

    it('detects unescaped commands', () => {
      expect(hasUnescapedQuickAction('ok\n /merge')).to.equal(true);
      expect(hasUnescapedQuickAction('ok\n- /merge')).to.equal(true);
      expect(hasUnescapedQuickAction('ok\n\\/merge')).to.equal(false);
    });
  });

  describe('truncateNote (H0)', () => {
    it('leaves short bodies alone', () => {
      expect(truncateNote('hello', { maxChars: 100 })).to.equal('hello');
    });

    it('H0 cuts at a line boundary below the limit and says so', () => {
      const body = Array.from({ length: 200 }, (_, i) => `line ${i}`).join('\n');
      const out = truncateNote(body, { maxChars: 600 });
      expect(out.length).to.be.at.most(600);
      expect(out).to.match(/⚠️ \*\*Truncated\*\*: [\d,]+ characters were cut/);
      const kept = out.split('\n\n---\n\n')[0]!;
      expect(body.startsWith(kept)).to.equal(true);
      expect(kept.endsWith('\n')).to.equal(false);
      expect(kept).to.match(/line \d+$/);
    });

    it('H0 closes a fenced block left open by the cut', () => {
      const body =
        `intro\n\`\`\`\`text\n${'x'.repeat(50)}\n`.repeat(1) + 'y\n'.repeat(1000) + '````\n';
      const out = truncateNote(body, { maxChars: 800 });
      expect(out.length).to.be.at.most(800);
      const head = out.split('\n\n---\n\n⚠️')[0]!;
      expect(head.endsWith('\n````')).to.equal(true);
    });

    it('H0 closes open <details> sections', () => {
      const body = `<details>\n<summary>x</summary>\n\n${'z\n'.repeat(2000)}</details>\n`;
      const out = truncateNote(body, { maxChars: 700 });
      expect(out).to.include('\n\n</details>\n\n---');
      expect(out.length).to.be.at.most(700);
    });

    it('H0 never splits a surrogate pair', () => {
      const body = '😀'.repeat(1000);
      const out = truncateNote(body, { maxChars: 500 });
      expect(out.length).to.be.at.most(500);
      expect(out).to.not.match(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
      expect(out).to.not.match(/(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
    });

    it('H0 keeps a 2 MB body below the default limit', () => {
      const body = '```\n' + 'a'.repeat(100).concat('\n').repeat(20_000) + '```\n';
      const out = truncateNote(body);
      expect(out.length).to.be.at.most(NOTE_MAX_CHARS);
      expect(out.length).to.be.greaterThan(NOTE_MAX_CHARS - 1000);
      expect(out).to.include('\n```\n\n---\n\n⚠️ **Truncated**');
    });
  });

  describe('fencing untrusted text', () => {
    it('C4 a fence cannot be closed by the text inside', () => {
      const text = 'before\n```\n/merge\n```\nafter';
      const out = fence(text, 'text');
      expect(out.startsWith('````text\n')).to.equal(true);
      expect(out.endsWith('\n````')).to.equal(true);
      const escaped = escapeQuickActions(out);
      expect(escaped).to.include(`${ZW}/merge`);
      expect(hasUnescapedQuickAction(escaped)).to.equal(false);
    });

    it('inline code survives backticks and newlines', () => {
      expect(inlineCode('a`b')).to.equal('``a`b``');
      expect(inlineCode('`x`')).to.equal('`` `x` ``');
      expect(inlineCode('a\nb')).to.equal('`a b`');
    });

    it('table cells stay on one line with pipes escaped', () => {
      expect(tableCell('a | b\nc')).to.equal('a \\| b c');
    });

    it('one-line text is shortened with an ellipsis', () => {
      expect(oneLine('abcdef', 4)).to.equal('abc…');
    });

    it('prose cannot hide text or imitate the note marker', () => {
      expect(safeProse('x <!-- mr-agent:progress --> y')).to.equal(
        'x &lt;!-- mr-agent:progress --> y',
      );
    });
  });
});
