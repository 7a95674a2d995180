import { expect } from 'chai';
import * as entry from '../../src/index.ts';

describe('package entry (LLM layer)', () => {
  it('SPEC contracts: exports extractJson, parseReviewVerdict and the adapter factory', () => {
    expect(entry.extractJson('x {"a": 1} y')).to.deep.include({ ok: true, value: { a: 1 } });
    expect(entry.parseReviewVerdict('最終判定: FAIL')).to.deep.include({
      result: 'FAIL',
      source: 'marker',
    });
    expect(entry.createOpenAiLlm).to.be.a('function');
    expect(entry.UsageLedger).to.be.a('function');
  });
});
