import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

const GOLDEN_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../golden');

/**
 * Compares `actual` with `test/golden/<name>`. `UPDATE_GOLDEN=1` rewrites the
 * file instead; a missing golden file fails (run once with UPDATE_GOLDEN=1).
 */
export async function expectGolden(name: string, actual: string): Promise<void> {
  const file = path.join(GOLDEN_DIR, name);
  if (process.env.UPDATE_GOLDEN === '1') {
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, actual);
    return;
  }
  if (!existsSync(file)) {
    expect.fail(`golden file test/golden/${name} is missing; run with UPDATE_GOLDEN=1`);
  }
  expect(actual).to.equal(await readFile(file, 'utf8'), `differs from test/golden/${name}`);
}
