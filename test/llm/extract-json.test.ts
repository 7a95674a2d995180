import { expect } from 'chai';
import { MAX_CHILDREN, MAX_SCAN_DEPTH } from '../../src/llm/json-scan.ts';
import {
  extractJson,
  findJsonValue,
  MAX_FAILED_PARSES,
  MAX_JSON_DEPTH,
  MAX_PARSE_CHARS,
  MAX_PARSED_SPANS,
  MAX_REPAIR_CHARS,
  type JsonExtraction,
} from '../../src/llm/extract-json.ts';
import { scanJsonSpans } from '../../src/llm/json-scan.ts';

function value(result: JsonExtraction): unknown {
  if (!result.ok) throw new Error(`expected JSON, got: ${result.reason}`);
  return result.value;
}

function reason(result: JsonExtraction): string {
  if (result.ok) throw new Error(`expected no JSON, got ${JSON.stringify(result.value)}`);
  return result.reason;
}

describe('llm/extract-json', () => {
  const found: [string, string, unknown][] = [
    ['a bare object', '{"result":"PASS"}', { result: 'PASS' }],
    [
      'prose after (seed 004 AC-1)',
      '{"result": "FAIL"} \n理由: タスク分割が不十分...',
      { result: 'FAIL' },
    ],
    ['a full stop after', '{"result": "FAIL"}。', { result: 'FAIL' }],
    ['a prefix before', '結果: {"result": "PASS"}', { result: 'PASS' }],
    ['the first of two', '{"result": "FAIL"} {"result": "PASS"}', { result: 'FAIL' }],
    [
      'nested objects (which a lazy regex cuts off)',
      'Verdict follows {"verdict":"PASS","details":{"a":{"b":[1,{"c":2}]}}} done',
      { verdict: 'PASS', details: { a: { b: [1, { c: 2 }] } } },
    ],
    [
      'braces and quotes inside strings',
      'x {"a": "} { ] [", "b": "say \\"hi\\" {", "c": "\\\\"} y',
      { a: '} { ] [', b: 'say "hi" {', c: '\\' },
    ],
    [
      'a code fence with prose around it',
      'Here is the plan:\n```json\n{\n  "steps": ["a", "b"]\n}\n```\nLet me know.',
      { steps: ['a', 'b'] },
    ],
    [
      'prose in braces before the JSON',
      'See {the notes above} and {x}: {"result":"PASS"}',
      { result: 'PASS' },
    ],
    [
      'a stray opening brace before the JSON',
      'Use the { key. {"result":"PASS"}',
      { result: 'PASS' },
    ],
    ['an array', 'The list: [1, 2, {"a": [3]}] end', [1, 2, { a: [3] }]],
    ['unicode content', '{"feedback": "判定は FAIL です 🚫"}', { feedback: '判定は FAIL です 🚫' }],
  ];
  for (const [what, text, expected] of found) {
    it(`G2 finds the first complete JSON value: ${what}`, () => {
      expect(value(extractJson(text))).to.deep.equal(expected);
    });
  }

  it('G2 reports where the JSON is and that it needed no repair', () => {
    const text = 'prefix {"a":1} suffix';
    expect(extractJson(text)).to.deep.equal({
      ok: true,
      value: { a: 1 },
      start: 7,
      end: 14,
      repaired: false,
    });
  });

  const repaired: [string, string, unknown][] = [
    ['trailing commas', '{"a": [1, 2,], "b": 3,}', { a: [1, 2], b: 3 }],
    [
      'single quotes',
      "{'result': 'PASS', 'feedback': 'fine'}",
      { result: 'PASS', feedback: 'fine' },
    ],
    ['bare keys', '{result: "FAIL", feedback: "x"}', { result: 'FAIL', feedback: 'x' }],
    ['Python literals', '{"a": True, "b": None}', { a: true, b: null }],
    [
      'a truncated end',
      'Sure: {"result": "FAIL", "feedback": "the tests do no',
      {
        result: 'FAIL',
        feedback: 'the tests do no',
      },
    ],
    [
      'a truncated nested end',
      '{"plan": {"steps": [{"id": 1}, {"id": 2',
      { plan: { steps: [{ id: 1 }, { id: 2 }] } },
    ],
    ['mismatched brackets', '{"a": [1, 2}', { a: [1, 2] }],
  ];
  for (const [what, text, expected] of repaired) {
    it(`G2 repairs near-JSON with jsonrepair: ${what}`, () => {
      const result = extractJson(text);
      expect(value(result)).to.deep.equal(expected);
      expect(result.ok && result.repaired).to.equal(true);
    });
  }

  it('G2 prefers a complete value that comes before a truncated one', () => {
    expect(value(extractJson('{ stray {"a":1} {"b": "trunc'))).to.deep.equal({ a: 1 });
  });

  it('does not turn prose in brackets into data', () => {
    expect(extractJson('- [x] done\n- [ ] open').ok).to.equal(true); // `[ ]` is JSON (an empty array)
    expect(reason(extractJson('- [x] done and [see notes]'))).to.contain('is prose, not JSON');
    expect(reason(extractJson('{see above}'))).to.contain('is prose, not JSON');
  });

  it('with top "object", skips arrays such as markdown checkboxes', () => {
    const text = '- [ ] write tests\n{"done": false}';
    expect(value(extractJson(text))).to.deep.equal([]);
    expect(value(extractJson(text, { top: 'object' }))).to.deep.equal({ done: false });
    expect(value(extractJson('[{"a":1}]', { top: 'object' }))).to.deep.equal({ a: 1 });
    expect(value(extractJson('x {"a":[1]} [2]', { top: 'array' }))).to.deep.equal([1]);
  });

  const reasons: [string, string, string][] = [
    ['an empty reply', '  \n ', 'the reply is empty'],
    ['no brackets', 'PASS, all good', "has no '{' or '['"],
    ['only prose in braces', 'use {x} and {y}', 'the object at offset 4 ("{x} and {y}") is prose'],
    ['a value that never closes', 'x {"a": "b" : "c" : "d"', 'is never closed; repair failed'],
    ['braces that open prose', 'text {{{ more', 'the object at offset 5 ("{{{ more") is prose'],
    [
      'broken JSON',
      'x {"a" 1 2} y',
      'the object at offset 2 ("{\\"a\\" 1 2} y") is not valid JSON',
    ],
  ];
  for (const [what, text, expected] of reasons) {
    it(`G2 says precisely why nothing was found: ${what}`, () => {
      expect(reason(extractJson(text))).to.contain(expected);
    });
  }

  it(`refuses values nested deeper than ${MAX_JSON_DEPTH} levels instead of parsing them`, () => {
    const deep = `${'['.repeat(MAX_JSON_DEPTH + 1)}${']'.repeat(MAX_JSON_DEPTH + 1)}`;
    expect(reason(extractJson(deep))).to.contain(`nests ${MAX_JSON_DEPTH + 1} levels deep`);
    const fine = `${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}`;
    expect(extractJson(fine).ok).to.equal(true);
    expect(reason(extractJson('{"a":'.repeat(100_000)))).to.contain(
      `nests more than ${MAX_SCAN_DEPTH} levels deep`,
    );
  });

  it(`issue #22: bounds repair to ${MAX_REPAIR_CHARS} characters and gives up after ${MAX_FAILED_PARSES} failures`, () => {
    // Missing commas: closing the brackets is not enough, and jsonrepair is not given this much.
    const long = `{"a": [${'1 '.repeat(MAX_REPAIR_CHARS)}`;
    expect(reason(extractJson(long))).to.contain('too long to repair');
    const junk = '{"a" 1 2} '.repeat(MAX_FAILED_PARSES + 10);
    expect(reason(extractJson(junk))).to.contain(
      `gave up after ${MAX_FAILED_PARSES} failed parses`,
    );
    // Repaired spans count as failed parses too: 10 000 of them cost no more than 256.
    const repairable = '{"a": 1,} '.repeat(10_000);
    expect(findJsonValue(repairable, () => false)).to.equal(undefined);
  });

  it('issue #22: closes a long truncated reply without jsonrepair', () => {
    const feedback = 'x'.repeat(4 * MAX_REPAIR_CHARS);
    const cut = extractJson(`Sure: {"result": "FAIL", "feedback": "${feedback}`);
    expect(value(cut)).to.deep.equal({ result: 'FAIL', feedback });
    expect(cut.ok && cut.repaired).to.equal(true);
    expect(value(extractJson('{"steps": [{"id": 1}, {"id": 2},\n'))).to.deep.equal({
      steps: [{ id: 1 }, { id: 2 }],
    });
  });

  it(`issue #22: tries at most ${MAX_PARSED_SPANS} spans, whether they parse or not`, () => {
    const verdict = '{"result": "PASS"}';
    const isVerdict = (v: unknown) => typeof v === 'object' && v !== null && 'result' in v;
    const before = (n: number) => `${'{"a": 1} '.repeat(n)}${verdict}`;
    expect(findJsonValue(before(MAX_PARSED_SPANS - 1), isVerdict)?.value).to.deep.equal({
      result: 'PASS',
    });
    expect(findJsonValue(before(MAX_PARSED_SPANS), isVerdict)).to.equal(undefined);
  });

  it(`issue #22: skips a span longer than ${MAX_PARSE_CHARS} characters instead of parsing it`, () => {
    const huge = `{"a": [${'1,'.repeat(MAX_PARSE_CHARS / 2)}1]}`;
    expect(reason(extractJson(huge))).to.contain(
      `is too long to parse (${huge.length} characters)`,
    );
    expect(value(extractJson(`${huge} {"after": 1}`))).to.deep.equal({ after: 1 });
  });

  it('keeps looking inside prose in braces and after absurd nesting', () => {
    expect(value(extractJson('{ notes {x} {y} {"a": 1} and more'))).to.deep.equal({ a: 1 });
    const many = `{"k": ${'[1] '.repeat(MAX_CHILDREN + 5)}`;
    expect(reason(extractJson(many, { top: 'object' }))).to.contain('is never closed');
    const crowd = `{"x" ${'{"k": 1 2} '.repeat(MAX_CHILDREN + 5)}`;
    expect(reason(extractJson(crowd))).to.contain(`holds more than ${MAX_CHILDREN} parts`);
    const deep = `{"ok": 1} ${'['.repeat(MAX_SCAN_DEPTH + 1)}`;
    expect(value(extractJson(deep))).to.deep.equal({ ok: 1 });
    // A run of openers deeper than the scan tracks does not hide what follows it.
    const after = `${'['.repeat(3 * MAX_SCAN_DEPTH)} {"late": 1}`;
    expect(value(extractJson(after, { top: 'object' }))).to.deep.equal({ late: 1 });
    const braces = `${'{'.repeat(3 * MAX_SCAN_DEPTH)} {"late": 1}`;
    expect(value(extractJson(braces))).to.deep.equal({ late: 1 });
  });

  const strings: [string, string, unknown][] = [
    ['an escaped quote right after the opening one', '{"a": "\\"x"} y', { a: '"x' }],
    ['a backslash ending the string', '{"a": "x\\\\"} {"b": 1}', { a: 'x\\' }],
    ['three backslashes before a quote', '{"a": "\\\\\\"}"} z', { a: '\\"}' }],
    ['escaped quotes packed together', `{"a": "${'\\"'.repeat(200)}"}`, { a: '"'.repeat(200) }],
    [
      'an escaped quote after a long backslash run',
      `{"a": "${'\\\\'.repeat(100)}\\"{"} x`,
      { a: `${'\\'.repeat(100)}"{` },
    ],
    [
      'escapes spread thin and thick',
      `{"a": "${'abcdefghij\\"'.repeat(20)}${'\\"'.repeat(20)}", "b": [1]}`,
      { a: `${'abcdefghij"'.repeat(20)}${'"'.repeat(20)}`, b: [1] },
    ],
  ];
  for (const [what, text, expected] of strings) {
    it(`G2 finds where a string ends: ${what}`, () => {
      expect(value(extractJson(text))).to.deep.equal(expected);
    });
  }

  it('G2 finds the end of a string made of 2 MB of backslashes', () => {
    // 2 MB of `\\` inside a string: quadratic before, when each escape searched for the far quote.
    const text = `{"a": "${'\\\\'.repeat(1 << 20)}"} {"b": 2}`;
    const ends: number[] = [];
    scanJsonSpans(text, 'any', (span) => {
      ends.push(span.end);
      return false;
    });
    expect(ends).to.deep.equal([text.indexOf('}') + 1, text.length]);
    const shorter = `{"a": "${'\\\\'.repeat(1 << 16)}"} {"b": 2}`;
    expect(value(extractJson(shorter))).to.deep.equal({ a: '\\'.repeat(1 << 16) });
  });

  it('findJsonValue returns the first value a predicate accepts', () => {
    const text = '{"kind":"note"} then {"result":"PASS"} then {"result":"FAIL"}';
    const hasResult = (v: unknown) => typeof v === 'object' && v !== null && 'result' in v;
    expect(findJsonValue(text, hasResult)?.value).to.deep.equal({ result: 'PASS' });
    expect(findJsonValue('{"a":{"result":"PASS"}}', hasResult)).to.equal(undefined);
  });
});
