// From job start to the first progress note (issue #22): `mr-agent ci` from
// the shipped bundle (dist/mr-agent.mjs, a child process) in a pipeline the
// bridge triggered for `/agent <task>`, against the GitLab stand-in and the
// scripted model over real HTTP; the time runs from spawning the command to
// the note appearing on the merge request.
//
// The baseline, measured in the same run: what Claude Code's GitLab
// integration spends before its agent can start, installing its CLI in the
// job (`npm install @anthropic-ai/claude-code`), here with a warm npm cache
// into a fresh folder (one install first fills the cache; it is not counted).
// Goal: first note ≤ 0.1× that install. BENCH_PEER=0 skips the install (the
// ratio is then not measured); so does a machine without the npm registry.
// Beside the wall times it prints the CPU time each side used (the command's
// own until the note, from /proc; the install's with its children), which a
// loaded machine stretches less than the wall time.
//
// Side by side with bare Node (`node -e 0`, run between the jobs, so a change
// in the machine's load hits both alike). Goal: first note ≤ 5× `node -e 0`.
//
// The jobs start as in the runner images: with V8's compile cache filled by
// `mr-agent warm-compile-cache` (NODE_COMPILE_CACHE, a folder of this bench).
// The same rounds also run the job without a compile cache
// (NODE_DISABLE_COMPILE_CACHE=1): a fresh container of an image of your own
// that ships none.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { action, assessment, planWith } from '../test/support/plans.ts';
import { BIN, runCiJob } from './support/ci-job.ts';
import { median, ms, reportGoal, times, verdictOf } from './support/goals.ts';

const RUNS = Number(process.env['BENCH_RUNS'] ?? 5);
const PEER_RUNS = Number(process.env['BENCH_PEER_RUNS'] ?? 3);
const PEER = '@anthropic-ai/claude-code';

const replies = [
  { purpose: 'planning', json: planWith([action('task_1', 'Add farewell()')], ['farewell()']) },
  {
    purpose: 'execution',
    tool_calls: [
      { name: 'write_file', arguments: { path: 'src/farewell.js', content: 'export {};\n' } },
    ],
  },
  { purpose: 'execution', content: 'DONE: added farewell()' },
  { purpose: 'completion', json: assessment(true) },
];

const notes: number[] = [];
const noteCpu: number[] = [];
const coldNotes: number[] = [];
const jobs: number[] = [];
const bareNode: number[] = [];

// what the runner images do at build time (their `mr-agent` wrapper sets NODE_COMPILE_CACHE)
const compileCache = mkdtempSync(path.join(os.tmpdir(), 'mr-agent-bench-compile-cache-'));
process.on('exit', () => rmSync(compileCache, { recursive: true, force: true }));
execFileSync(process.execPath, [BIN, 'warm-compile-cache'], {
  env: { PATH: process.env['PATH'] ?? '', NODE_COMPILE_CACHE: compileCache },
  stdio: 'ignore',
});

/** Wall time of `node -e 0` with the same Node as the jobs. */
function bareNodeStart(): number {
  const start = performance.now();
  spawnSync(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  return performance.now() - start;
}

for (let i = 0; i < RUNS; i++) {
  bareNode.push(bareNodeStart());
  const job = await runCiJob({
    replies,
    task: 'add a farewell function',
    variables: { NODE_COMPILE_CACHE: compileCache },
  });
  if (job.firstNoteMs === undefined) throw new Error('the job posted no progress note');
  notes.push(job.firstNoteMs);
  if (job.firstNoteCpuMs !== undefined) noteCpu.push(job.firstNoteCpuMs);
  jobs.push(job.wallMs);
  const cold = await runCiJob({
    replies,
    task: 'add a farewell function',
    variables: { NODE_DISABLE_COMPILE_CACHE: '1' },
  });
  if (cold.firstNoteMs === undefined) throw new Error('the job posted no progress note');
  coldNotes.push(cold.firstNoteMs);
}
console.log(`mr-agent ci from dist/mr-agent.mjs, ${RUNS} jobs (node ${process.version})`);
console.log(`  job start → first progress note: median ${ms(median(notes))}`);
if (noteCpu.length > 0)
  console.log(`  CPU time of the command until then: median ${ms(median(noteCpu))}`);
console.log(`  the same without a compile cache: median ${ms(median(coldNotes))}`);
console.log(`  whole job (1 action):            median ${ms(median(jobs))}`);
console.log(`  node -e 0, in the same rounds:    median ${ms(median(bareNode))}`);
reportGoal({
  goal: 'job start → first progress note ≤ 5× `node -e 0`',
  figure: ms(median(notes)),
  baseline: `${ms(median(bareNode))} (node -e 0)`,
  ratio: times(median(notes) / median(bareNode)),
  verdict: verdictOf(median(notes) <= 5 * median(bareNode)),
});
reportGoal({
  goal: 'job start → first progress note without a compile cache',
  figure: ms(median(coldNotes)),
  baseline: `${ms(median(bareNode))} (node -e 0)`,
  ratio: times(median(coldNotes) / median(bareNode)),
  verdict: 'info',
});

/** CPU time (ms) used so far by this process's reaped children, from /proc (Linux). */
function childrenCpu(): number {
  if (!existsSync('/proc/self/stat')) return Number.NaN;
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  // after "pid (comm) ": cutime is field 13, cstime 14, in clock ticks (100 a second)
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

const peerCpu: number[] = [];

/** Wall time of `npm install <peer>` into fresh folders after one install that fills the cache. */
function peerInstall(): number[] | string {
  if (process.env['BENCH_PEER'] === '0') return 'skipped (BENCH_PEER=0)';
  const install = () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'mr-agent-bench-peer-'));
    try {
      writeFileSync(path.join(dir, 'package.json'), '{"name":"peer","private":true}');
      const start = performance.now();
      const cpu = childrenCpu();
      execFileSync('npm', ['install', '--no-audit', '--no-fund', PEER], {
        cwd: dir,
        stdio: 'ignore',
        timeout: 600_000,
      });
      peerCpu.push(childrenCpu() - cpu);
      return performance.now() - start;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  try {
    install(); // fills the npm cache
  } catch (error) {
    return `not measured: npm install ${PEER} failed (${(error as Error).message.split('\n')[0]})`;
  }
  return Array.from({ length: PEER_RUNS }, install);
}

const peer = peerInstall();
const note = median(notes);
if (typeof peer === 'string') {
  console.log(`  peer: ${peer}`);
  reportGoal({
    goal: 'job start → first progress note ≤ 0.1× a warm `npm install @anthropic-ai/claude-code`',
    figure: ms(note),
    baseline: peer,
    ratio: '–',
    verdict: 'info',
  });
} else {
  const install = median(peer);
  console.log(`  peer: npm install ${PEER} (warm cache, fresh folder): median ${ms(install)}`);
  reportGoal({
    goal: 'job start → first progress note ≤ 0.1× a warm `npm install @anthropic-ai/claude-code`',
    figure: ms(note),
    baseline: `${ms(install)} (npm install, warm cache)`,
    ratio: times(note / install),
    verdict: verdictOf(note <= 0.1 * install),
  });
  // On a loaded machine both wait for a core; their CPU times tell the work apart.
  const cpu = median(noteCpu);
  const installCpu = median(peerCpu.slice(1));
  if (noteCpu.length > 0 && Number.isFinite(installCpu)) {
    console.log(`  CPU time of the install (npm and its children): median ${ms(installCpu)}`);
    reportGoal({
      goal: 'CPU time: job start → first progress note, against the same install',
      figure: `${ms(cpu)} CPU`,
      baseline: `${ms(installCpu)} CPU (npm install, warm cache)`,
      ratio: times(cpu / installCpu),
      verdict: 'info',
    });
  }
}
