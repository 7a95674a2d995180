import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The hardening suites' figures: each suite prints one block when it ends and
 * records it in its own file under `.hardening-figures/` (repository root),
 * which `.ci/run` prints after the test summary. One file per suite, so suites
 * running in parallel workers never overwrite each other's figures.
 */
const DIR = path.resolve(import.meta.dirname, '../../../.hardening-figures');

export function recordFigures(suite: string, lines: readonly string[]): void {
  process.stdout.write(`\n[${suite}]\n${lines.map((l) => `  ${l}`).join('\n')}\n`);
  mkdirSync(DIR, { recursive: true });
  const slug = suite.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  writeFileSync(path.join(DIR, `${slug}.json`), `${JSON.stringify({ suite, lines }, null, 2)}\n`);
}
