// `mr-agent demo` end to end (SPEC A7; goal: under 10 s on a developer
// machine): wall time of the whole demo (stand-in, scripted model, bridge,
// job, push), time per progress phase, and the GitLab API and LLM requests.
// Five runs; prints the median and the fastest.
import { runDemo, type DemoResult } from '../src/demo/run-demo.ts';
import { PHASES } from '../src/core/progress.ts';

const RUNS = Number(process.env.DEMO_BENCH_RUNS ?? 5);
const hostEnv = { PATH: process.env.PATH, HOME: process.env.HOME };

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

const results: DemoResult[] = [];
for (let i = 0; i < RUNS; i++) {
  const result = await runDemo({ out: { write: () => true }, live: false, color: false, hostEnv });
  if (result.exitCode !== 0)
    throw new Error(`demo run ${i + 1} failed: ${result.job.outcome.summary}`);
  results.push(result);
}

const walls = results.map((r) => r.durationMs);
console.log(
  `demo wall time over ${RUNS} runs: median ${seconds(median(walls))}, fastest ${seconds(Math.min(...walls))}`,
);

console.log('time per phase (median):');
for (const phase of PHASES) {
  const times = results.map((r) => r.job.reporting.publisher.current.phases[phase].totalMs ?? 0);
  if (times.some((t) => t > 0)) console.log(`  ${phase.padEnd(18)} ${seconds(median(times))}`);
}

const last = results.at(-1)!;
const byRoute = new Map<string, number>();
for (const r of last.gitlabRequests) {
  const key = `${r.method} ${r.route || r.path}`;
  byRoute.set(key, (byRoute.get(key) ?? 0) + 1);
}
const calls = results.map((r) => r.gitlabRequests.length);
console.log(
  `GitLab API requests per demo: ${median(calls)} (range ${Math.min(...calls)}–${Math.max(...calls)}; note edits depend on timing)`,
);
for (const [route, n] of [...byRoute].sort(([a], [b]) => a.localeCompare(b)))
  console.log(`  ${String(n).padStart(3)}  ${route}`);
const tokens = last.job.outcome.tokens;
console.log(
  `LLM requests per demo: ${last.llmRequests.length} (${Object.entries(tokens.byPurpose)
    .map(([purpose, u]) => `${purpose} ${u.calls}`)
    .join(', ')}), ${tokens.totalTokens} tokens`,
);
