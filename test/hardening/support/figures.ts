import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The hardening suites' figures: each suite prints one block when it ends and
 * records it in `.hardening-figures.json` (repository root), which `.ci/run`
 * prints after the test summary.
 */
const FILE = path.resolve(import.meta.dirname, '../../../.hardening-figures.json');

export function recordFigures(suite: string, lines: readonly string[]): void {
  process.stdout.write(`\n[${suite}]\n${lines.map((l) => `  ${l}`).join('\n')}\n`);
  let all: Record<string, string[]> = {};
  try {
    all = JSON.parse(readFileSync(FILE, 'utf8')) as Record<string, string[]>;
  } catch {
    // first suite of this run
  }
  all[suite] = [...lines];
  writeFileSync(FILE, `${JSON.stringify(all, null, 2)}\n`);
}
