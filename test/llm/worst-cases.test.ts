import { expect } from 'chai';
import { WORST_CASES } from '../../bench/llm-worst-cases.ts';
import { extractJson } from '../../src/llm/extract-json.ts';
import { parseReviewVerdict } from '../../src/llm/review-verdict.ts';
import { findMarkers } from '../../src/llm/verdict-markers.ts';

/**
 * Issue #22: the worst-case replies that `npm run bench` times at 1–10 MB
 * (bench/llm-worst-cases.ts), checked here for what the parsers make of
 * them at two sizes, so that the bounds that keep them fast cannot cost a
 * verdict. No timing here: the bench measures, the tests pin behaviour.
 */
describe('llm: worst-case replies (issue #22, SPEC G2)', function () {
  this.timeout(60_000);
  const SIZES = [64 * 1024, 1024 * 1024];

  for (const c of WORST_CASES) {
    for (const size of SIZES) {
      const kb = `${size / 1024} KB`;
      it(`G2 ${c.name} (${kb}) → ${c.verdict} from ${c.source}`, () => {
        const text = c.make(size);
        expect(text.length).to.be.within(size * 0.9, size * 1.1);
        const parsed = parseReviewVerdict(text);
        expect([parsed.result, parsed.source]).to.deep.equal([c.verdict, c.source]);
        const found = extractJson(text);
        if (c.json !== undefined) expect(found.ok && found.value).to.deep.equal(c.json);
        else if (!found.ok) expect(found.reason).to.match(/^no JSON found: /);
      });
    }
  }

  it('G2 the last marker line of a level decides after a million lines of it', () => {
    const text = `${'判定: PASS\n'.repeat(100_000)}判定: FAIL\n${'x\n'.repeat(100_000)}`;
    const hits = findMarkers(text);
    expect(hits[2]).to.include({ verdict: 'FAIL', offset: text.indexOf('判定: FAIL') });
  });
});
