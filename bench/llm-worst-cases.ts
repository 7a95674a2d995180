// The worst-case model replies of issue #22, shared by the LLM bench (which
// times them at 1, 5 and 10 MB) and the tests (which check, at smaller sizes,
// what the parsers make of them). Every reply ends with a verdict, so that the
// JSON search and the marker scan both have to get through the whole text.
import type { Verdict } from '../src/llm/verdict-markers.ts';

export interface WorstCase {
  name: string;
  /** The reply, about `size` characters long. */
  make: (size: number) => string;
  /** What `parseReviewVerdict` has to read from it, at any size. */
  verdict: Verdict;
  source: 'json' | 'marker';
  /** What `extractJson` has to find in it, when that does not depend on the size. */
  json?: unknown;
}

/**
 * `unit` repeated to about `size` characters between `head` and `tail`.
 * The result is flattened, as a reply read from the network would be (a
 * string built by `repeat` is a tree of pieces that is slower to read).
 */
export function fill(size: number, unit: string, head = '', tail = ''): string {
  const count = Math.max(1, Math.floor((size - head.length - tail.length) / unit.length));
  return flatten(head + unit.repeat(count) + tail);
}

function flatten(text: string): string {
  return JSON.parse(JSON.stringify(text)) as string;
}

const PASS_JSON = '{"result": "PASS", "feedback": "ok"}';
const FAIL_JSON = '{"result": "FAIL", "feedback": "no"}';
const ok = { result: 'PASS', feedback: 'ok' };
const no = { result: 'FAIL', feedback: 'no' };

export const WORST_CASES: readonly WorstCase[] = [
  {
    name: 'repeated JSON objects',
    make: (size) => fill(size, '{"a":1} ', '', '\n最終判定: PASS'),
    verdict: 'PASS',
    source: 'marker',
    json: { a: 1 },
  },
  {
    name: 'repeated non-verdict {"result":…}',
    make: (size) => fill(size, '{"result":"x"} ', '', '\n判定: FAIL'),
    verdict: 'FAIL',
    source: 'marker',
    json: { result: 'x' },
  },
  {
    name: 'repairable objects',
    make: (size) => fill(size, '{"a":1,} ', '', '\nVerdict: PASS'),
    verdict: 'PASS',
    source: 'marker',
    json: { a: 1 },
  },
  {
    name: 'brace words',
    make: (size) => fill(size, '{word} ', '', PASS_JSON),
    verdict: 'PASS',
    source: 'json',
    json: ok,
  },
  {
    name: 'open braces',
    make: (size) => fill(size, '{', '', FAIL_JSON),
    verdict: 'FAIL',
    source: 'json',
    json: no,
  },
  {
    name: 'open brackets',
    make: (size) => fill(size, '[', '', ` ${PASS_JSON}`),
    verdict: 'PASS',
    source: 'json',
  },
  {
    name: 'open braces and brackets',
    make: (size) => fill(size, '{[', '', ` ${FAIL_JSON}`),
    verdict: 'FAIL',
    source: 'json',
  },
  {
    name: 'unclosed {"a": run',
    make: (size) => fill(size, '{"a":', '', `\n${PASS_JSON}`),
    verdict: 'PASS',
    source: 'json',
  },
  {
    name: 'deep valid nesting',
    make: (size) => {
      const depth = Math.floor((size - 12) / 6);
      return flatten(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}\n判定: FAIL`);
    },
    verdict: 'FAIL',
    source: 'marker',
  },
  {
    name: 'one huge JSON value',
    make: (size) => fill(size, '[1],', '{"a": [', `[1]]}\n${FAIL_JSON}`),
    verdict: 'FAIL',
    source: 'json',
  },
  {
    name: 'backslash-quote runs in a string',
    make: (size) => fill(size, '\\"', '{"a": "', `"}\n${PASS_JSON}`),
    verdict: 'PASS',
    source: 'json',
  },
  {
    name: 'backslash-quote runs in prose',
    make: (size) => fill(size, '\\"', '', `\n${PASS_JSON}`),
    verdict: 'PASS',
    source: 'json',
    json: ok,
  },
  {
    name: 'backslash runs in a string',
    make: (size) => fill(size, '\\\\', '{"a": "', `"}\n${FAIL_JSON}`),
    verdict: 'FAIL',
    source: 'json',
  },
  {
    name: 'escape-dense string',
    make: (size) => fill(size, 'x{\\"\\\\', '{"a": "', `"}\n${PASS_JSON}`),
    verdict: 'PASS',
    source: 'json',
  },
  {
    name: 'unclosed string',
    make: (size) =>
      fill(size, 'lorem {ipsum} \\"quoted\\" ', 'Reply: {"feedback": "', '\n判定: FAIL'),
    verdict: 'FAIL',
    source: 'marker',
  },
  {
    name: 'bracketed prose',
    make: (size) => fill(size, 'see {note} and [x] ', '', `\n${FAIL_JSON}`),
    verdict: 'FAIL',
    source: 'json',
    json: no,
  },
  {
    name: 'marker lines',
    make: (size) => fill(size, 'Verdict: PASS\n', '', 'Verdict: FAIL'),
    verdict: 'FAIL',
    source: 'marker',
  },
  {
    name: 'near-marker lines',
    make: (size) => fill(size, 'Verdict: maybe\n', '', 'Verdict: PASS'),
    verdict: 'PASS',
    source: 'marker',
  },
  {
    name: 'Japanese marker lines',
    make: (size) => fill(size, '判定: PASS\n', '', '判定: FAIL'),
    verdict: 'FAIL',
    source: 'marker',
  },
  {
    name: 'mixed marker levels',
    make: (size) =>
      fill(
        size,
        '- 判定: PASS\n**最終判定: PASS_WITH_SUGGESTIONS**\nPASS判定が可能 総合判定: FAIL\n',
        '',
        '最終判定: FAIL',
      ),
    verdict: 'FAIL',
    source: 'marker',
  },
  {
    name: 'one-character lines',
    make: (size) => fill(size, 'x\n', '', '判定: PASS'),
    verdict: 'PASS',
    source: 'marker',
  },
  {
    name: 'empty lines',
    make: (size) => fill(size, '\n', '', '判定: FAIL'),
    verdict: 'FAIL',
    source: 'marker',
  },
  {
    name: 'one long line, then a marker',
    make: (size) => fill(size, 'lorem ipsum ', '', '\n判定: PASS'),
    verdict: 'PASS',
    source: 'marker',
  },
  {
    name: 'one long line, then JSON',
    make: (size) => fill(size, 'lorem ipsum ', '', `\n${FAIL_JSON}`),
    verdict: 'FAIL',
    source: 'json',
    json: no,
  },
];
