import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';

/**
 * Compares text with a golden file; `UPDATE_GOLDEN=1 npm test` rewrites the
 * files (review the diff before committing).
 */
export async function expectGolden(file: string, actual: string): Promise<void> {
  if (process.env.UPDATE_GOLDEN === '1' || !existsSync(file)) {
    if (process.env.CI === 'true' && !existsSync(file))
      throw new Error(`golden file missing: ${file}`);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, actual);
    return;
  }
  expect(actual, `differs from ${file} (UPDATE_GOLDEN=1 rewrites it)`).to.equal(
    await readFile(file, 'utf8'),
  );
}
