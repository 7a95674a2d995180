/**
 * Atomic file writes: the data goes to a temporary file in the same
 * folder, is flushed to disk, then renamed over the target, so a reader or a
 * run killed half-way never sees a half-written file. A write the disk
 * refuses (full, read-only, no permission) leaves the old file as it was and
 * fails with an ExternalServiceError naming the file.
 */
import { mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { ExternalServiceError } from '../errors/errors.ts';

/**
 * Eight hex digits no other process can guess (a temporary file's name in a
 * folder the command user may write to). Node's crypto module is taken when a
 * file is written, not loaded with this module before every job's first note.
 */
function unpredictable(): string {
  return process.getBuiltinModule('node:crypto').randomBytes(4).toString('hex');
}

export interface AtomicWriteOptions {
  /** File mode of a new file (default 0o644). */
  mode?: number;
}

/** The file-system calls the writer makes. */
export interface AtomicFs {
  mkdir: typeof mkdir;
  open: typeof open;
  rename: typeof rename;
  rm: typeof rm;
}

const NODE_FS: AtomicFs = { mkdir, open, rename, rm };
let fs: AtomicFs = NODE_FS;

/**
 * Fault-injection seam for tests (disk full, read-only disk): replaces the
 * file system every atomic write uses until the returned function is called.
 */
export function replaceAtomicFs(replacement: AtomicFs): () => void {
  fs = replacement;
  return () => {
    fs = NODE_FS;
  };
}

const STORAGE_ERRORS: Record<string, string> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is used up',
  EROFS: 'the file system is read-only',
  EACCES: 'no permission to write there',
  EPERM: 'no permission to write there',
  EIO: 'an input/output error',
  EFBIG: 'the file is too large for this file system',
};

function storageError(file: string, error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const why = code ? STORAGE_ERRORS[code] : undefined;
  if (!why) return error;
  return new ExternalServiceError('file system', `cannot write ${file}: ${why} (${code})`, {
    cause: error,
    hint: 'Free space or fix the permissions of the state directory (state.directory); files written earlier are unchanged.',
  });
}

export async function writeFileAtomic(
  file: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const dir = path.dirname(file);
  const temp = path.join(dir, `.${path.basename(file)}.${process.pid}.${unpredictable()}.tmp`);
  let handle;
  try {
    await fs.mkdir(dir, { recursive: true });
    handle = await fs.open(temp, 'w', options.mode ?? 0o644);
    await handle.writeFile(data);
    await handle.sync();
    await handle.close();
    handle = undefined;
    await fs.rename(temp, file);
  } catch (error) {
    await handle?.close().catch(() => undefined);
    await fs.rm(temp, { force: true }).catch(() => undefined);
    throw storageError(file, error);
  }
}
