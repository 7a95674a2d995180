// Environment detection on a generated 50 000-file monorepo, next to `git ls-files` on the same tree.
// Run: npx tsx bench/detect.bench.ts  (figures are medians of 7 runs after 2 warm-up runs)
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { detectEnvironment } from '../src/phases/environment/detect/detect.ts';

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

async function median(runs: number, work: () => Promise<unknown> | unknown): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs + 2; i += 1) {
    const started = performance.now();
    await work();
    if (i >= 2) times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

const root = mkdtempSync(path.join(tmpdir(), 'mr-agent-bench-'));
try {
  const files = generate(root);
  execFileSync('git', ['init', '-q'], { cwd: root });
  execFileSync('git', ['add', '-A'], { cwd: root });
  const tracked =
    execFileSync('git', ['ls-files'], { cwd: root, maxBuffer: 1 << 28 })
      .toString()
      .split('\n').length - 1;
  const git = await median(7, () =>
    execFileSync('git', ['ls-files'], { cwd: root, maxBuffer: 1 << 28 }),
  );
  let environment = '';
  const indexed = await median(
    7,
    async () => (environment = (await detectEnvironment(root)).environment_type),
  );
  const walked = await median(7, () => detectEnvironment(root, { listing: 'walk' }));
  const row = (name: string, ms: number) =>
    `${name.padEnd(36)} ${ms.toFixed(1).padStart(8)} ms   ratio to git ls-files ${(ms / git).toFixed(2)}`;
  console.log(
    `tree: ${files} files tracked by git (${tracked} listed), ${IGNORED_FILES} more in an ignored node_modules/`,
  );
  console.log(`${'git ls-files'.padEnd(36)} ${git.toFixed(1).padStart(8)} ms`);
  console.log(row('detectEnvironment (git index)', indexed));
  console.log(row('detectEnvironment (walk, .gitignore)', walked));
  console.log(`detected: ${environment}; goal: detection ≤ 2 × git ls-files`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
