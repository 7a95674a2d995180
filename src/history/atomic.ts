/**
 * Atomic file writes (SPEC I3): the data goes to a temporary file in the same
 * folder, is flushed to disk, then renamed over the target, so a reader or a
 * run killed half-way never sees a half-written file.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';

export interface AtomicWriteOptions {
  /** File mode of a new file (default 0o644). */
  mode?: number;
}

export async function writeFileAtomic(
  file: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const dir = path.dirname(file);
  await mkdir(dir, { recursive: true });
  const temp = path.join(
    dir,
    `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`,
  );
  let handle;
  try {
    handle = await open(temp, 'w', options.mode ?? 0o644);
    await handle.writeFile(data);
    await handle.sync();
    await handle.close();
    handle = undefined;
    await rename(temp, file);
  } catch (error) {
    await handle?.close().catch(() => undefined);
    await rm(temp, { force: true });
    throw error;
  }
}
