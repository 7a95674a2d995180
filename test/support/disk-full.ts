import { mkdir, open, rename, rm } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { replaceAtomicFs, type AtomicFs } from '../../src/history/atomic.ts';

/**
 * A disk that fills up: atomic writes succeed until `budgetBytes` have been
 * written in total, then every write fails with ENOSPC the way the kernel
 * reports it (after the temp file was created, before its data is complete).
 */
export interface DiskFull {
  /** Writes refused so far. */
  refused: number;
  /** Bytes accepted so far. */
  written: number;
  restore(): void;
}

function enospc(): NodeJS.ErrnoException {
  return Object.assign(new Error('ENOSPC: no space left on device, write'), {
    code: 'ENOSPC',
    errno: -28,
    syscall: 'write',
  });
}

export function fillDiskAfter(budgetBytes: number): DiskFull {
  const state: DiskFull = { refused: 0, written: 0, restore: () => undefined };
  const fs: AtomicFs = {
    mkdir,
    rename,
    rm,
    open: (async (...args: Parameters<typeof open>) => {
      const handle: FileHandle = await open(...args);
      const writeFile = handle.writeFile.bind(handle);
      handle.writeFile = (async (data: string | Uint8Array) => {
        const size = typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength;
        if (state.written + size > budgetBytes) {
          state.refused++;
          // a partial write happened before the disk ran out
          await writeFile(typeof data === 'string' ? data.slice(0, 16) : data.slice(0, 16));
          throw enospc();
        }
        state.written += size;
        return writeFile(data);
      }) as FileHandle['writeFile'];
      return handle;
    }) as typeof open,
  };
  state.restore = replaceAtomicFs(fs);
  return state;
}
