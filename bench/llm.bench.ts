// JSON extraction and review-verdict parsing on adversarial replies of 1–10 MB
// (SPEC G2: 10 MB in < 100 ms, linear; no regex with catastrophic backtracking).
// Prints the median of RUNS runs (after a warm-up) per input and size, and the
// 10 MB / 1 MB ratio (about 10 when the time grows linearly). BENCH_CPU=1 measures
// CPU time instead of wall time (steadier on a shared machine); BENCH_RUNS=n
// changes the number of runs.
import { performance } from 'node:perf_hooks';
import { extractJson } from '../src/llm/extract-json.ts';
import { parseReviewVerdict } from '../src/llm/review-verdict.ts';

const MB = 1024 * 1024;
const SIZES = [1, 2, 4, 8, 10];
const RUNS = Number(process.env['BENCH_RUNS'] ?? 11);

/** Repeats `unit` to about `size` characters, plus an optional tail. */
function fill(size: number, unit: string, head = '', tail = ''): string {
  const body = unit.repeat(
    Math.max(1, Math.floor((size - head.length - tail.length) / unit.length)),
  );
  // Flatten the rope `repeat` builds, as a reply read from the network would be.
  return JSON.parse(JSON.stringify(head + body + tail)) as string;
}

const INPUTS: Record<string, (size: number) => string> = {
  'unclosed { run': (size) => fill(size, '{'),
  'unclosed {"a": run': (size) => fill(size, '{"a":'),
  'deep nesting': (size) => {
    const depth = Math.floor(size / 12);
    return fill(0, '', '{"a":'.repeat(depth) + '1' + '}'.repeat(depth), ' tail');
  },
  'unclosed { with parts': (size) => fill(size, '{} {x} [1] ', '{ '),
  'huge string': (size) =>
    fill(size, 'lorem {ipsum} [dolor] \\"quoted\\" sit ', '{"feedback": "', '"} 判定: PASS'),
  'unclosed huge string': (size) =>
    fill(size, 'lorem {ipsum} \\"quoted\\" ', 'Reply: {"feedback": "'),
  'escape-dense string': (size) => fill(size, 'x{\\"\\\\', '{"a": "', '"}'),
  'backslash-run string': (size) => fill(size, '\\\\', '{"a": "', '"}'),
  'bracketed prose': (size) => fill(size, 'see {note} and [x] '),
  'markers everywhere': (size) =>
    fill(
      size,
      '- 判定: PASS\n**最終判定: PASS_WITH_SUGGESTIONS**\nPASS判定が可能 総合判定: FAIL\n',
    ),
  'one-level marker lines': (size) => fill(size, '判定: PASS\n'),
  'long lines, no newline': (size) => fill(size, '判定: PASS '),
};

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function time(run: () => unknown): number {
  run(); // warm-up
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    if (process.env['BENCH_CPU']) {
      const before = process.cpuUsage();
      run();
      const used = process.cpuUsage(before);
      samples.push((used.user + used.system) / 1000);
    } else {
      const start = performance.now();
      run();
      samples.push(performance.now() - start);
    }
  }
  return median(samples);
}

function table(title: string, measure: (text: string) => unknown): void {
  const head = ['input'.padEnd(24), ...SIZES.map((s) => `${s} MB`.padStart(9)), '10/1'.padStart(7)];
  console.log(`\n${title} (median of ${RUNS}, ms)`);
  console.log(head.join(''));
  let worst = 0;
  for (const [name, make] of Object.entries(INPUTS)) {
    const times = SIZES.map((size) => {
      const text = make(size * MB);
      return time(() => measure(text));
    });
    worst = Math.max(worst, times.at(-1)!);
    const ratio = times.at(-1)! / Math.max(times[0]!, 0.01);
    console.log(
      [
        name.padEnd(24),
        ...times.map((t) => t.toFixed(1).padStart(9)),
        ratio.toFixed(1).padStart(7),
      ].join(''),
    );
  }
  console.log(`slowest at 10 MB: ${worst.toFixed(1)} ms (goal < 100 ms)`);
}

/** The cheapest linear scan there is: one charCodeAt pass over 10 MB. Calibrates the figures. */
function baseline(): number {
  const text = fill(10 * MB, 'plain text {with} "quotes" [and] brackets\n');
  return time(() => {
    let count = 0;
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 0x7b) count++;
    return count;
  });
}

console.log(`llm parsing bench (node ${process.version})`);
console.log(
  `baseline: one charCodeAt pass over 10 MB takes ${baseline().toFixed(1)} ms on this machine`,
);
table('extractJson', (text) => extractJson(text));
table('parseReviewVerdict', (text) => parseReviewVerdict(text));
