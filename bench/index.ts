// `npm run bench`: runs every bench/*.bench.ts in turn (each in its own
// process, through tsx), prints its output, and ends with one table of the
// goals the benches report (goal, figure, baseline, ratio, verdict; see
// bench/support/goals.ts). The benches measure the shipped artefact, so the
// build runs first. BENCH_ONLY=llm,startup runs the named benches only.
// Exits non-zero if a bench fails or a goal is missed.
import { execFileSync, spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { GOAL_MARK, type GoalRow } from './support/goals.ts';

const here = dirname(fileURLToPath(import.meta.url));
const only = process.env['BENCH_ONLY']?.split(',').map((name) => name.trim());
const benches = readdirSync(here)
  .filter((name) => name.endsWith('.bench.ts'))
  .filter((name) => !only || only.includes(name.replace(/\.bench\.ts$/, '')))
  .sort();

function runBench(name: string, rows: GoalRow[]): Promise<number | null> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(here, name)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout });
  lines.on('line', (line) => {
    if (line.startsWith(GOAL_MARK)) rows.push(JSON.parse(line.slice(GOAL_MARK.length)) as GoalRow);
    else console.log(line);
  });
  return new Promise((resolve) => child.on('close', (code) => resolve(code)));
}

function printTable(rows: readonly GoalRow[]): void {
  console.log('\n| goal | figure | baseline | ratio | verdict |\n| --- | --- | --- | ---: | --- |');
  for (const row of rows) {
    console.log(`| ${[row.goal, row.figure, row.baseline, row.ratio, row.verdict].join(' | ')} |`);
  }
}

console.log('building the shipped artefact (npm run build)');
execFileSync('npm', ['run', '--silent', 'build'], { stdio: 'inherit' });
const rows: GoalRow[] = [];
let failed = 0;
for (const name of benches) {
  console.log(`\n=== ${name} ===`);
  const code = await runBench(name, rows);
  if (code !== 0) {
    failed++;
    console.log(`${name} failed (exit ${code})`);
  }
}
console.log(`\n${benches.length} bench file(s) run, ${failed} failed`);
printTable(rows);
const count = (verdict: GoalRow['verdict']) => rows.filter((row) => row.verdict === verdict).length;
const missed = count('missed');
console.log(
  `\n${rows.length} goal rows: ${count('met')} met, ${missed} missed, ${count('info')} for information`,
);
process.exitCode = failed > 0 || missed > 0 ? 1 : 0;
