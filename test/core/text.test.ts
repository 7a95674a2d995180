import { expect } from 'chai';
import { tail } from '../../src/core/shell-port.ts';
import { cutText, fence } from '../../src/core/text.ts';
import { oneLine } from '../../src/report/markdown.ts';
import { capText } from '../../src/tools/cap.ts';
import { truncateTask } from '../../src/commands/variables.ts';
import { capOutput, clip } from '../../src/workers/output.ts';

const lone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** One fence helper and one text cutter for every layer (issue 17 #7). */
describe('core/text', () => {
  it('C4 a fence outgrows every backtick run inside, at least three', () => {
    expect(fence('a ```` b', 'text')).to.equal('`````text\na ```` b\n`````');
    expect(fence('plain')).to.equal('```\nplain\n```');
    expect(fence('x\r\ny\n\n', 'yaml')).to.equal('```yaml\nx\ny\n```');
  });

  it('C4 fences 300 000 backtick runs without overflowing the stack', () => {
    const fenced = fence(`${'`a'.repeat(300_000)}\`\`\`\``);
    expect(fenced.split('\n')[0]).to.equal('`````');
  });

  it('issue 17 #7 cuts to at most max characters, marker included, keeping start, end or both', () => {
    const text = `${'a'.repeat(100)}${'b'.repeat(100)}`;
    const start = cutText(text, 40);
    const end = cutText(text, 40, { keep: 'end' });
    const both = cutText(text, 40, { keep: 'both' });
    for (const cut of [start, end, both]) expect(cut.length).to.be.at.most(40);
    expect(start).to.equal(`${'a'.repeat(39)}…`);
    expect(end).to.match(/^…\(\d+ characters cut\)\nb+$/);
    expect(both).to.match(/^a+\n…\(\d+ characters cut\)…\nb+$/);
    expect(cutText('short', 40, { keep: 'both' })).to.equal('short');
  });

  it('the marker counts what was cut', () => {
    const cut = cutText('x'.repeat(1000), 100, { keep: 'end' });
    const count = Number(/\((\d+) characters cut\)/.exec(cut)![1]);
    expect(count + cut.length - cut.indexOf('\n') - 1).to.equal(1000);
  });

  it('never splits an emoji (a surrogate pair) at the cut', () => {
    const emoji = '😀'.repeat(100);
    for (const keep of ['start', 'end', 'both'] as const) {
      for (const max of [10, 11, 41, 42]) {
        expect(cutText(emoji, max, { keep }), `${keep} ${max}`).not.to.match(lone);
      }
    }
  });

  it('takes another marker', () => {
    expect(cutText('abcdefghij', 8, { marker: () => ' [more]' })).to.equal('a [more]');
  });

  it('issue 17 #7 every cut in the agent goes through the one cutter: none splits an emoji or passes its limit', () => {
    const emoji = `x${'😀'.repeat(5000)}`;
    const cuts: Array<[string, string, number]> = [
      ['capText', capText(emoji, 1001), 1001],
      ['capOutput', capOutput(emoji, 1001), 1001],
      ['tail', tail(emoji, 1001), 1001],
      ['clip', clip(emoji, 1001), 1001],
      ['oneLine', oneLine(emoji, 1001), 1001],
      ['truncateTask', truncateTask(emoji, 1001), 1001],
    ];
    for (const [name, cut, max] of cuts) {
      expect(cut, name).not.to.match(lone);
      expect(cut.length, name).to.be.at.most(max);
    }
  });
});
