import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { resolveInRepo } from './sandbox.ts';
import type { RepoRoot } from '../core/tool.ts';

export interface RepoFileText {
  /** The first `cap` bytes, as UTF-8. */
  text: string;
  /** The file's whole size in bytes. */
  size: number;
}

/**
 * Reads a repository file through the path sandbox (M2, issue 19 §5), for the
 * readers that are not tools (environment detection, review): a symbolic
 * link that leaves the checkout or leads into `.git` is not followed, and
 * the last name is opened with `O_NOFOLLOW`, so a link swapped in after the
 * check is not followed either. At most `cap` bytes are read. Undefined when
 * the file is outside, missing, not a regular file or unreadable.
 */
export async function readInRepo(
  root: RepoRoot,
  rel: string,
  cap: number,
): Promise<RepoFileText | undefined> {
  let handle: FileHandle | undefined;
  try {
    const real = await resolveInRepo(root, rel);
    handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW);
    const info = await handle.stat();
    if (!info.isFile()) return undefined;
    const buffer = Buffer.alloc(Math.min(info.size, cap));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return { text: buffer.toString('utf8', 0, bytesRead), size: info.size };
  } catch {
    return undefined;
  } finally {
    await handle?.close();
  }
}
