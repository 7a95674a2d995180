// JSON extraction and review-verdict parsing on the worst-case replies of
// issue #22 (bench/llm-worst-cases.ts) at 1, 5 and 10 MB. Goal (SPEC G2,
// seed 004): every reply of 10 MB in under 100 ms, growing linearly.
//
// The parsers are timed from the shipped bundle (dist/index.mjs, built if it
// is missing), the code users run. Each figure is the median of BENCH_RUNS
// runs (default 5) after a warm-up, in CPU time: the parsers are synchronous
// and single-threaded, so that is their cost, and it does not count the time
// a loaded machine gives to other processes (BENCH_WALL=1 measures wall time
// instead). The baseline is the cheapest linear pass there is: one
// `charCodeAt` loop over 10 MB.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type * as Library from '../src/index.ts';
import { fill, WORST_CASES } from './llm-worst-cases.ts';
import { median, ms, reportGoal, times, verdictOf } from './support/goals.ts';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const entry = path.join(root, 'dist', 'index.mjs');
if (!existsSync(entry)) execFileSync('npm', ['run', '--silent', 'build'], { stdio: 'inherit' });
const shipped = (await import(pathToFileURL(entry).href)) as typeof Library;

const MB = 1024 * 1024;
const SIZES = [1, 5, 10];
const RUNS = Number(process.env['BENCH_RUNS'] ?? 5);
const GOAL_MS = 100;
const WALL = process.env['BENCH_WALL'] === '1';
const CLOCK = WALL ? 'wall time' : 'CPU time';
/**
 * Linear growth makes 10 MB cost 10× 1 MB; a text that no longer fits in the
 * CPU caches costs up to about twice as much per MB, a quadratic parser 10×.
 */
const MAX_GROWTH = 20;
/** Below this, a 10 MB figure is too small for its growth ratio to mean anything. */
const NOISE_MS = 5;

function time(run: () => unknown): number {
  run(); // warm-up
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    if (WALL) {
      const start = performance.now();
      run();
      samples.push(performance.now() - start);
    } else {
      const before = process.cpuUsage();
      run();
      const used = process.cpuUsage(before);
      samples.push((used.user + used.system) / 1000);
    }
  }
  return median(samples);
}

interface Worst {
  slowest: number;
  slowestName: string;
  growth: number;
  growthName: string;
}

const PARSERS = {
  extractJson: (text: string) => shipped.extractJson(text),
  parseReviewVerdict: (text: string) => shipped.parseReviewVerdict(text),
};
type Parser = keyof typeof PARSERS;

/**
 * One table: each reply at each size through both parsers in turn, so that
 * both run with the same state of the JIT (what it learnt from the replies
 * before), rather than one after the other over all replies.
 */
function table(): Record<Parser, Worst> {
  const worst = {
    extractJson: { slowest: 0, slowestName: '', growth: 0, growthName: '' },
    parseReviewVerdict: { slowest: 0, slowestName: '', growth: 0, growthName: '' },
  };
  const sizes = SIZES.map((s) => `${s} MB`.padStart(8));
  console.log(`\nmedian of ${RUNS} runs, ms of ${CLOCK}`);
  console.log(`${''.padEnd(36)}${'extractJson'.padEnd(31)}parseReviewVerdict`);
  console.log(
    `${'reply'.padEnd(36)}${[...sizes, '10/1'.padStart(7), ...sizes, '10/1'.padStart(7)].join('')}`,
  );
  for (const c of WORST_CASES) {
    const figures: Record<Parser, number[]> = { extractJson: [], parseReviewVerdict: [] };
    for (const size of SIZES) {
      const text = c.make(size * MB);
      for (const [name, parse] of Object.entries(PARSERS) as [Parser, (t: string) => unknown][]) {
        figures[name].push(time(() => parse(text)));
      }
    }
    const cells: string[] = [];
    for (const name of Object.keys(PARSERS) as Parser[]) {
      const row = figures[name];
      const last = row.at(-1)!;
      const growth = last / Math.max(row[0]!, 0.01);
      const w = worst[name];
      if (last > w.slowest) Object.assign(w, { slowest: last, slowestName: c.name });
      if (last >= NOISE_MS && growth > w.growth) Object.assign(w, { growth, growthName: c.name });
      cells.push(...row.map((t) => t.toFixed(1).padStart(8)), growth.toFixed(1).padStart(7));
    }
    console.log(`${c.name.padEnd(36)}${cells.join('')}`);
  }
  for (const [name, w] of Object.entries(worst)) {
    console.log(
      `${name}: slowest at 10 MB ${ms(w.slowest)} (${w.slowestName}; goal < ${GOAL_MS} ms)`,
    );
  }
  return worst;
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

console.log(`llm parsing bench (node ${process.version}, ${path.relative(root, entry)})`);
const base = baseline();
console.log(`baseline: one charCodeAt pass over 10 MB takes ${ms(base)} on this machine`);
const results = table();
for (const [name, worst] of Object.entries(results)) {
  reportGoal({
    goal: `${name}: every worst-case reply of 10 MB < ${GOAL_MS} ms`,
    figure: `${ms(worst.slowest)} ${CLOCK} (${worst.slowestName})`,
    baseline: `${ms(base)} (one charCodeAt pass)`,
    ratio: times(worst.slowest / base),
    verdict: verdictOf(worst.slowest < GOAL_MS),
  });
  reportGoal({
    goal: `${name}: linear growth (10 MB / 1 MB ≤ ${MAX_GROWTH}; quadratic would be 100)`,
    figure: `${worst.growth.toFixed(1)} (${worst.growthName || 'none above noise'})`,
    baseline: '',
    ratio: worst.growth.toFixed(1),
    verdict: verdictOf(worst.growth <= MAX_GROWTH),
  });
}
