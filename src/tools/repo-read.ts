import path from 'node:path';
import { readCheckout } from '../shell/checkout-reader.ts';
import { resolveInRepo } from './sandbox.ts';
import type { RepoRoot } from '../core/tool.ts';

export interface RepoFileText {
  /** The first `cap` bytes, as UTF-8. */
  text: string;
  /** The file's whole size in bytes. */
  size: number;
}

/**
 * Reads a repository file through the path sandbox, for the
 * readers that are not tools (environment detection, review): a symbolic
 * link that leaves the checkout or leads into `.git` is not followed. The
 * read itself goes through checkout-reader.ts: no folder on the way may be a
 * link, the last name is opened with `O_NOFOLLOW`, and once the checkout is
 * the command user's the read runs as that user, so a folder swapped for a
 * link after the check reaches nothing that user could not read anyway. At
 * most `cap` bytes are read. Undefined when the file is outside, missing,
 * not a regular file or unreadable.
 */
export async function readInRepo(
  root: RepoRoot,
  rel: string,
  cap: number,
): Promise<RepoFileText | undefined> {
  try {
    const real = await resolveInRepo(root, rel);
    const [read] = await readCheckout(root.real, [path.relative(root.real, real)], { cap });
    if (read?.kind !== 'file') return undefined;
    return { text: read.content.toString('utf8'), size: read.size };
  } catch {
    return undefined;
  }
}
