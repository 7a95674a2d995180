// The time `mr-agent setup` adds over the raw install and test commands, on
// the Node projects written for it (test/fixtures/setup/node-projects.ts:
// npm, pnpm, Yarn 1 and Berry through corepack, a workspace, a TypeScript
// build step, engines). Each round sets up a fresh copy of each project twice,
// once with the commands a developer would type and once with the shipped
// `node dist/mr-agent.mjs setup`, the two taking turns; the package managers'
// caches are shared and warmed first, so both install from the same cache.
// Goal (issue: measures): the sum of the setup times ≤ 1.2 × the sum of the
// raw times (medians over BENCH_RUNS rounds, default 3).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { NODE_PROJECTS, type NodeProject } from '../test/fixtures/setup/node-projects.ts';
import { median, ms, reportGoal, times, verdictOf } from './support/goals.ts';

const RUNS = Number(process.env['BENCH_RUNS'] ?? 3);
const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const bin = path.join(root, 'dist', 'mr-agent.mjs');
if (!existsSync(bin)) execFileSync('npm', ['run', '--silent', 'build'], { cwd: root });

const dir = mkdtempSync(path.join(os.tmpdir(), 'mr-agent-bench-setup-'));
const cache = path.join(dir, 'cache');
const shims = path.join(cache, 'mr-agent', 'bin');
const env: Record<string, string> = {
  ...(process.env as Record<string, string>),
  PATH: `${shims}:${path.dirname(process.execPath)}:${process.env['PATH'] ?? ''}`,
  XDG_CACHE_HOME: cache,
  npm_config_cache: path.join(cache, 'npm'),
  COREPACK_HOME: path.join(cache, 'corepack'),
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

function timed(run: () => { status: number | null; output: string }, what: string): number {
  const started = performance.now();
  const result = run();
  const elapsed = performance.now() - started;
  if (result.status !== 0)
    throw new Error(`${what} failed (exit ${result.status}):\n${result.output.slice(-2000)}`);
  return elapsed;
}

function raw(project: NodeProject): number {
  const cwd = freshCopy(project);
  return timed(() => {
    const r = spawnSync('sh', ['-c', project.raw.join(' && ')], { cwd, env, encoding: 'utf8' });
    return { status: r.status, output: `${r.stdout}${r.stderr}` };
  }, `raw ${project.name}`);
}

function setup(project: NodeProject): number {
  const cwd = freshCopy(project);
  return timed(() => {
    const r = spawnSync(process.execPath, [bin, 'setup', cwd], { env, encoding: 'utf8' });
    return { status: r.status, output: `${r.stdout}${r.stderr}` };
  }, `mr-agent setup ${project.name}`);
}

try {
  mkdirSync(shims, { recursive: true });
  // warm the caches (packages, corepack's package managers, the shims) once
  for (const project of NODE_PROJECTS) setup(project);
  const rows: { name: string; raw: number; setup: number }[] = [];
  for (const project of NODE_PROJECTS) {
    const rawTimes: number[] = [];
    const setupTimes: number[] = [];
    for (let i = 0; i < RUNS; i += 1) {
      rawTimes.push(raw(project));
      setupTimes.push(setup(project));
    }
    rows.push({ name: project.name, raw: median(rawTimes), setup: median(setupTimes) });
  }
  for (const row of rows)
    console.log(
      `${row.name.padEnd(42)} raw ${ms(row.raw).padStart(10)}   mr-agent setup ${ms(row.setup).padStart(10)}   ${times(row.setup / row.raw)}`,
    );
  const rawSum = rows.reduce((s, r) => s + r.raw, 0);
  const setupSum = rows.reduce((s, r) => s + r.setup, 0);
  console.log(`all ${rows.length} projects: raw ${ms(rawSum)}, mr-agent setup ${ms(setupSum)}`);
  reportGoal({
    goal: '`mr-agent setup` ≤ 1.2× the raw install and test commands (own Node fixtures)',
    figure: `${ms(setupSum)} setup`,
    baseline: `${ms(rawSum)} raw`,
    ratio: times(setupSum / rawSum),
    verdict: verdictOf(setupSum / rawSum <= 1.2),
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
