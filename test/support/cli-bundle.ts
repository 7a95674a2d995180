import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleCli } from '../../scripts/bundle-cli.mjs';

/**
 * The command bundled once per test process (scripts/bundle-cli.mjs, the same
 * build as `npm run build`), into a temp folder that is removed when the
 * process exits. Tests that run the real binary copy or run this file instead
 * of bundling again.
 */
const REPO_ROOT = path.resolve(import.meta.dirname, '../..');
let bundled: Promise<string> | undefined;

export function cliBundle(): Promise<string> {
  bundled ??= (async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'mr-agent-test-bundle-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    return bundleCli(path.join(dir, 'mr-agent.mjs'));
  })();
  return bundled;
}

/** Newest modification time (ms) of a file or of every file below a folder. */
function newestMtime(target: string): number {
  const stat = statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const name of readdirSync(target))
    newest = Math.max(newest, newestMtime(path.join(target, name)));
  return newest;
}

/** What `npm run build` writes, relative to the repository root. */
export const BUILD_OUTPUTS = [
  'dist/mr-agent.mjs',
  'dist/chunks',
  'dist/index.mjs',
  'dist/types/index.d.ts',
];
/** What `npm run build` reads: when none is newer than the outputs, dist/ is current. */
const BUILD_INPUTS = ['src', 'scripts', 'package.json', 'tsconfig.json', 'tsconfig.build.json'];

/**
 * Runs `npm run build` unless dist/ is already newer than everything the
 * build reads (a fresh checkout, as in CI, always builds). Returns whether it built.
 */
export function ensureBuilt(): boolean {
  const outputs = BUILD_OUTPUTS.map((f) => path.join(REPO_ROOT, f));
  if (outputs.every((f) => existsSync(f))) {
    const oldestOutput = Math.min(...outputs.map((f) => statSync(f).mtimeMs));
    const newestInput = Math.max(...BUILD_INPUTS.map((f) => newestMtime(path.join(REPO_ROOT, f))));
    if (newestInput < oldestOutput) return false;
  }
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: REPO_ROOT, stdio: 'pipe' });
  return true;
}
