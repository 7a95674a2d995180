// The time `mr-agent setup` adds over the raw install and test commands, on
// the Node projects written for it (test/fixtures/setup/node-projects.ts:
// npm, pnpm, Yarn 1 and Berry through corepack, a workspace, a TypeScript
// build step, engines). Each round sets up a fresh copy of each project twice,
// once with the commands a developer would type and once with the shipped
// `node dist/mr-agent.mjs setup`, each through `sh -c`, the two taking turns
// (which goes first alternates by round). The package managers' caches are shared and warmed
// first by both sides, so both install from the same cache: every cache is
// named by a variable that reaches setup's commands (setup passes its commands
// only the allow-listed variables of src/shell/sandbox-env.ts, and
// `XDG_CACHE_HOME` is not one, so Yarn 1's and pnpm's caches are set through
// `YARN_*` and `npm_config_*`), and all of them live in the bench's temporary
// folder. The machine's load average is printed with the figure: the fixed
// cost of a process start weighs more on a busy machine (2 cores shared by
// several engineers stretch it several times over). The CPU time of each
// side's processes (the shell's `times`) is printed beside it: it measures the
// work mr-agent adds, which the load stretches far less.
// Goal (issue: measures): the sum of the setup times ≤ 1.2 × the sum of the
// raw times over BENCH_RUNS rounds (default 3): per project, the median raw
// time plus the median of the paired differences (setup minus raw of the same
// round).
import { execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { NODE_PROJECTS, type NodeProject } from '../test/fixtures/setup/node-projects.ts';
import { median, ms, reportGoal, times, verdictOf } from './support/goals.ts';

const RUNS = Number(process.env['BENCH_RUNS'] ?? 3);
const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const bin = path.join(root, 'dist', 'mr-agent.mjs');

/** The newest modification time under `dir` (the sources the bundle is made of). */
function newestIn(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestIn(file) : statSync(file).mtimeMs);
  }
  return newest;
}
// the shipped bundle, rebuilt when a source is newer: a stale one would time yesterday's code
if (!existsSync(bin) || newestIn(path.join(root, 'src')) > statSync(bin).mtimeMs)
  execFileSync(process.execPath, ['scripts/build.mjs', '--bundle-only'], { cwd: root });

const dir = mkdtempSync(path.join(os.tmpdir(), 'mr-agent-bench-setup-'));
const cache = path.join(dir, 'cache');
const shims = path.join(cache, 'mr-agent', 'bin');
const env: Record<string, string> = {
  ...(process.env as Record<string, string>),
  PATH: `${shims}:${path.dirname(process.execPath)}:${process.env['PATH'] ?? ''}`,
  XDG_CACHE_HOME: cache,
  npm_config_cache: path.join(cache, 'npm'),
  COREPACK_HOME: path.join(cache, 'corepack'),
  YARN_CACHE_FOLDER: path.join(cache, 'yarn'),
  YARN_GLOBAL_FOLDER: path.join(cache, 'yarn-berry'),
  npm_config_store_dir: path.join(cache, 'pnpm-store'),
  npm_config_cache_dir: path.join(cache, 'pnpm'),
  COREPACK_INTEGRITY_KEYS: '0',
  COREPACK_ENABLE_DOWNLOAD_PROMPT: '0',
  COREPACK_NPM_REGISTRY: process.env['COREPACK_NPM_REGISTRY'] ?? 'https://registry.npmjs.org',
  YARN_NPM_REGISTRY_SERVER: process.env['YARN_NPM_REGISTRY_SERVER'] ?? 'https://registry.npmjs.org',
  CI: 'true',
};

let copies = 0;
function freshCopy(project: NodeProject): string {
  const target = path.join(dir, `p${copies++}`);
  for (const [rel, content] of Object.entries(project.files)) {
    mkdirSync(path.dirname(path.join(target, rel)), { recursive: true });
    writeFileSync(path.join(target, rel), content);
  }
  return target;
}

interface Sample {
  /** Wall-clock milliseconds. */
  wall: number;
  /** CPU milliseconds (user + system) of every process the side started. */
  cpu: number;
}

const TIMES_MARK = '@@times';

/**
 * Runs `command` in `sh` in `cwd`, both sides alike; the shell's `times` after it gives the CPU
 * time of all its children, which a busy machine stretches far less than the wall clock.
 */
function measured(command: string, cwd: string, what: string): Sample {
  const script = `${command}\nstatus=$?\necho ${TIMES_MARK} >&2\ntimes >&2\nexit $status`;
  const started = performance.now();
  const result = spawnSync('sh', ['-c', script], { cwd, env, encoding: 'utf8' });
  const wall = performance.now() - started;
  if (result.status !== 0)
    throw new Error(
      `${what} failed (exit ${result.status}):\n${`${result.stdout}${result.stderr}`.slice(-2000)}`,
    );
  const children = result.stderr.split(`${TIMES_MARK}\n`).pop()!.split('\n')[1] ?? '';
  const seconds = [...children.matchAll(/(\d+)m([\d.]+)s/g)].map(
    ([, m, s]) => Number(m) * 60 + Number(s),
  );
  if (seconds.length !== 2) throw new Error(`${what}: no CPU times in ${JSON.stringify(children)}`);
  return { wall, cpu: (seconds[0]! + seconds[1]!) * 1000 };
}

const quoted = (word: string) => `'${word.replace(/'/g, "'\\''")}'`;

function raw(project: NodeProject): Sample {
  return measured(project.raw.join(' && '), freshCopy(project), `raw ${project.name}`);
}

function setup(project: NodeProject): Sample {
  const cwd = freshCopy(project);
  return measured(
    [process.execPath, bin, 'setup', cwd].map(quoted).join(' '),
    cwd,
    `mr-agent setup ${project.name}`,
  );
}

const load = () => os.loadavg()[0]!.toFixed(1);

try {
  mkdirSync(shims, { recursive: true });
  // warm the caches (packages, corepack's package managers, the shims) once, from both sides
  for (const project of NODE_PROJECTS) {
    setup(project);
    raw(project);
  }
  const loadBefore = load();
  const rows: { name: string; raw: Sample; setup: Sample }[] = [];
  for (const project of NODE_PROJECTS) {
    const rawRuns: Sample[] = [];
    const setupRuns: Sample[] = [];
    for (let i = 0; i < RUNS; i += 1) {
      // paired runs; the side that goes first alternates, so neither always finds the other's warmth
      if (i % 2 === 0) {
        rawRuns.push(raw(project));
        setupRuns.push(setup(project));
      } else {
        setupRuns.push(setup(project));
        rawRuns.push(raw(project));
      }
    }
    // mr-agent's part is the median of the paired differences (setup minus raw of the same
    // round), so a load that drifts between rounds cancels out; raw is the median raw time
    const added = (pick: (r: Sample) => number) =>
      median(setupRuns.map((run, i) => pick(run) - pick(rawRuns[i]!)));
    const rawMid = {
      wall: median(rawRuns.map((r) => r.wall)),
      cpu: median(rawRuns.map((r) => r.cpu)),
    };
    rows.push({
      name: project.name,
      raw: rawMid,
      setup: { wall: rawMid.wall + added((r) => r.wall), cpu: rawMid.cpu + added((r) => r.cpu) },
    });
  }
  const loadAfter = load();
  for (const row of rows)
    console.log(
      `${row.name.padEnd(42)} raw ${ms(row.raw.wall).padStart(10)}   mr-agent setup ${ms(row.setup.wall).padStart(10)}   ${times(row.setup.wall / row.raw.wall)}  (+${ms(row.setup.wall - row.raw.wall)}; CPU +${ms(row.setup.cpu - row.raw.cpu)})`,
    );
  const sum = (pick: (row: (typeof rows)[number]) => number) =>
    rows.reduce((total, row) => total + pick(row), 0);
  const rawSum = sum((r) => r.raw.wall);
  const setupSum = sum((r) => r.setup.wall);
  const rawCpu = sum((r) => r.raw.cpu);
  const setupCpu = sum((r) => r.setup.cpu);
  console.log(
    `all ${rows.length} projects: raw ${ms(rawSum)}, mr-agent setup ${ms(setupSum)}, ${times(setupSum / rawSum)}; mr-agent's own part ${ms((setupSum - rawSum) / rows.length)} a project (load average ${loadBefore} before, ${loadAfter} after, ${os.cpus().length} cores)`,
  );
  console.log(
    `CPU time, all processes: raw ${ms(rawCpu)}, mr-agent setup ${ms(setupCpu)}, ${times(setupCpu / rawCpu)}; mr-agent's own part ${ms((setupCpu - rawCpu) / rows.length)} a project`,
  );
  reportGoal({
    goal: '`mr-agent setup` ≤ 1.2× the raw install and test commands (own Node fixtures)',
    figure: `${ms(setupSum)} setup (load ${loadBefore}–${loadAfter}; CPU ${times(setupCpu / rawCpu)})`,
    baseline: `${ms(rawSum)} raw`,
    ratio: times(setupSum / rawSum),
    verdict: verdictOf(setupSum / rawSum <= 1.2),
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
