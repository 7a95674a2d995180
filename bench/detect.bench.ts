// Environment detection on a generated 50 000-file monorepo, next to `git ls-files` on the same tree.
// Run: npx tsx bench/detect.bench.ts  (median and fastest of 15 runs after 5 warm-up runs; the
// fastest is the steadier figure on a busy machine). The shipped command's rows run
// `node dist/mr-agent.mjs detect --json` (built first when missing): "its own work" is the
// detection's stats.duration_ms, "whole process" adds start-up (the start-up bench's subject).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { detectEnvironment } from '../src/phases/environment/detect-environment.ts';
import { DECISION_LAYOUTS, layoutMisses } from '../test/fixtures/layouts/decision-layouts.ts';
import { reportGoal, verdictOf } from './support/goals.ts';

const PACKAGES = 50;
const DIRS_PER_PACKAGE = 20;
const FILES_PER_DIR = 50;
const IGNORED_FILES = 5000;

function generate(root: string): number {
  let files = 0;
  const write = (rel: string, content: string) => {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), content);
    files += 1;
  };
  write(
    'package.json',
    JSON.stringify({ name: 'bench', private: true, workspaces: ['packages/*'] }),
  );
  write('.gitignore', 'node_modules/\ndist/\n');
  // evidence read on every run: CI workflows and a README with an install section
  for (const name of ['ci', 'release', 'docs'])
    write(
      `.github/workflows/${name}.yml`,
      `jobs:\n  ${name}:\n    strategy:\n      matrix:\n        node: [20, 22]\n    steps:\n      - uses: actions/setup-node@v4\n        with:\n          node-version: \${{ matrix.node }}\n      - run: |\n          corepack enable\n          pnpm install --frozen-lockfile\n          pnpm test\n`,
    );
  write(
    'README.md',
    `# bench\n\n## Installation\n\n\`\`\`bash\npnpm install\npnpm test\n\`\`\`\n\n${'Some prose about the project. '.repeat(600)}\n`,
  );
  for (let p = 0; p < PACKAGES; p += 1) {
    write(
      `packages/pkg${p}/package.json`,
      JSON.stringify({ name: `pkg${p}`, dependencies: { zod: '^3.23.8' } }),
    );
    for (let d = 0; d < DIRS_PER_PACKAGE; d += 1) {
      for (let f = 0; f < FILES_PER_DIR && files < 50_000; f += 1) {
        write(`packages/pkg${p}/src/mod${d}/file${f}.ts`, `export const v${f} = ${f};\n`);
      }
    }
  }
  // on disk but ignored: what a developer's checkout also holds
  for (let i = 0; i < IGNORED_FILES; i += 1) {
    const target = path.join(root, `node_modules/dep${i % 100}/lib/f${i}.js`);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, '');
  }
  return files;
}

interface Timing {
  median: number;
  fastest: number;
}

async function time(runs: number, work: () => Promise<unknown> | unknown): Promise<Timing> {
  const times: number[] = [];
  for (let i = 0; i < runs + WARM_UP; i += 1) {
    const started = performance.now();
    await work();
    if (i >= WARM_UP) times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(times.length / 2)]!, fastest: times[0]! };
}

const RUNS = 15;
const WARM_UP = 5;
const CLI = 'dist/mr-agent.mjs';
const root = mkdtempSync(path.join(tmpdir(), 'mr-agent-bench-'));
try {
  const files = generate(root);
  execFileSync('git', ['init', '-q'], { cwd: root });
  execFileSync('git', ['add', '-A'], { cwd: root });
  const tracked =
    execFileSync('git', ['ls-files'], { cwd: root, maxBuffer: 1 << 28 })
      .toString()
      .split('\n').length - 1;
  const git = await time(RUNS, () =>
    execFileSync('git', ['ls-files'], { cwd: root, maxBuffer: 1 << 28 }),
  );
  let environment = '';
  const indexed = await time(
    RUNS,
    async () => (environment = (await detectEnvironment(root)).environment_type),
  );
  const walked = await time(RUNS, () => detectEnvironment(root, { listing: 'walk' }));
  // the shipped artefact: `mr-agent detect --json` as a child process; its own work is stats.duration_ms
  if (!existsSync(CLI))
    execFileSync('node', ['scripts/build.mjs', '--bundle-only'], { stdio: 'inherit' });
  const own: number[] = [];
  const shipped = await time(RUNS, () => {
    const out = execFileSync(process.execPath, [CLI, 'detect', root, '--json'], {
      maxBuffer: 1 << 28,
    });
    own.push((JSON.parse(out.toString()) as { stats: { duration_ms: number } }).stats.duration_ms);
  });
  own.splice(0, WARM_UP);
  own.sort((a, b) => a - b);
  const ownWork: Timing = { median: own[Math.floor(own.length / 2)]!, fastest: own[0]! };
  const ms = (t: Timing) =>
    `median ${t.median.toFixed(1).padStart(6)} ms, fastest ${t.fastest.toFixed(1).padStart(6)} ms`;
  const row = (name: string, t: Timing) =>
    `${name.padEnd(37)} ${ms(t)}   ratio to git ls-files ${(t.median / git.median).toFixed(2)} (median), ${(t.fastest / git.fastest).toFixed(2)} (fastest)`;
  console.log(
    `tree: ${files} files tracked by git (${tracked} listed), ${IGNORED_FILES} more in an ignored node_modules/`,
  );
  console.log(`${'git ls-files'.padEnd(37)} ${ms(git)}`);
  console.log(row('detectEnvironment (git index)', indexed));
  console.log(row('detectEnvironment (walk, .gitignore)', walked));
  console.log(row('dist/mr-agent.mjs detect: its own work', ownWork));
  console.log(row('dist/mr-agent.mjs detect: whole process', shipped));
  console.log(`detected: ${environment}; goal: detection ≤ 2 × git ls-files`);
  decisionScore();
} finally {
  rmSync(root, { recursive: true, force: true });
}

/** The decision score: `mr-agent detect --json` on each hand-written layout, against what a maintainer would sign. */
function decisionScore(): void {
  let right = 0;
  for (const layout of DECISION_LAYOUTS) {
    const dir = mkdtempSync(path.join(tmpdir(), 'mr-agent-layout-'));
    try {
      for (const [rel, content] of Object.entries(layout.files)) {
        mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
        writeFileSync(path.join(dir, rel), content);
      }
      const out = execFileSync(process.execPath, [CLI, 'detect', dir, '--json']);
      const misses = layoutMisses(layout, JSON.parse(out.toString()) as never);
      if (misses.length === 0) right += 1;
      console.log(
        `${misses.length === 0 ? 'right' : 'wrong'}  ${layout.name}${misses.length ? `: ${misses.join('; ')}` : ''}`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const total = DECISION_LAYOUTS.length;
  console.log(`decision score on the layout fixtures: ${right}/${total}`);
  reportGoal({
    goal: 'environment decisions on the layout fixtures: all right',
    figure: `${right}/${total} right`,
    baseline: '',
    ratio: `${((100 * right) / total).toFixed(0)} %`,
    verdict: verdictOf(right === total),
  });
}
