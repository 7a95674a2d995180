// `mr-agent demo` end to end (SPEC A7; goal: under 10 s on a developer
// machine), from the shipped bundle: `node dist/mr-agent.mjs demo` as a child
// process, as a user runs it (stand-in GitLab, scripted model, bridge, job,
// push, all over real HTTP). Prints the wall time (median and fastest of
// DEMO_BENCH_RUNS runs, default 3), the CPU time the demo and its commands
// used (through /usr/bin/time when the machine has it), and the GitLab and
// LLM requests the demo itself reports.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { BIN } from './support/ci-job.ts';
import { median, reportGoal, verdictOf } from './support/goals.ts';

const RUNS = Number(process.env['DEMO_BENCH_RUNS'] ?? 3);
const GOAL_S = 10;
const TIME = '/usr/bin/time';
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

const walls: number[] = [];
const cpus: number[] = [];
let summary = '';
const dir = mkdtempSync(path.join(os.tmpdir(), 'mr-agent-bench-demo-'));
try {
  for (let i = 0; i < RUNS; i++) {
    const cpuFile = path.join(dir, 'cpu');
    const timed = existsSync(TIME);
    const command = [process.execPath, BIN, 'demo'];
    const [file, ...args] = timed ? [TIME, '-f', '%U %S', '-o', cpuFile, ...command] : command;
    const start = performance.now();
    const run = spawnSync(file!, args, {
      cwd: dir,
      env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? dir },
      encoding: 'utf8',
    });
    walls.push(performance.now() - start);
    if (run.status !== 0) throw new Error(`demo run ${i + 1} exited ${run.status}:\n${run.stdout}`);
    if (timed) {
      const [user, system] = readFileSync(cpuFile, 'utf8').trim().split(' ').map(Number);
      cpus.push((user! + system!) * 1000);
    }
    summary = run.stdout.split('\n').find((line) => line.startsWith('✅ COMPLETE')) ?? '';
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const wall = median(walls);
console.log(
  `demo (dist/mr-agent.mjs demo) over ${RUNS} runs: median ${seconds(wall)}, fastest ${seconds(Math.min(...walls))}`,
);
if (cpus.length > 0)
  console.log(`CPU time of the demo and its commands: median ${seconds(median(cpus))}`);
console.log(`the demo's own summary: ${summary}`);
reportGoal({
  goal: `\`mr-agent demo\` < ${GOAL_S} s (A7)`,
  figure: seconds(wall),
  baseline: cpus.length > 0 ? `${seconds(median(cpus))} CPU` : '',
  ratio: `${(wall / (GOAL_S * 1000)).toFixed(2)} of the goal`,
  verdict: verdictOf(wall < GOAL_S * 1000),
});
