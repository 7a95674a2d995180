import { chmod, chown, lchown, lstat, readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import type { CommandUser } from '../core/isolation.ts';

/**
 * Gives the checkout to the command user (issue 19 §3): every entry the
 * agent created since (files of `write_file`, folders) becomes the user's,
 * so a command can change what the agent wrote. Symbolic links are never
 * followed: the link itself changes owner (`lchown`), an entry whose
 * folder no longer resolves to itself (a folder swapped for a link) is left
 * alone, and so is a file with more than one name (a hard link). The folders in `user.keep` (`.git`, the state folder) stay the
 * agent's: the agent's git never runs in a `.git` a command could change.
 * The checkout folder itself stays the agent's too (see `closeTopFolder`).
 */
export async function handOverCheckout(user: CommandUser): Promise<void> {
  const give = async (entry: string) => {
    const info = await lstat(entry).catch(() => undefined);
    if (!info || (info.uid === user.uid && info.gid === user.gid)) return info;
    // a second name of a file is never given away: it may be a link to a file outside
    if (!info.isDirectory() && info.nlink > 1) return undefined;
    if ((await realpath(path.dirname(entry)).catch(() => '')) !== path.dirname(entry)) return;
    await lchown(entry, user.uid, user.gid).catch(() => undefined);
    return info;
  };
  const visit = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (keep.has(full)) continue;
      const info = await give(full);
      if (info?.isDirectory()) await visit(full);
    }
  };
  const root = await realpath(user.checkout);
  const keep = new Set(user.keep.map((k) => path.join(root, k)));
  await visit(root);
}

/**
 * The checkout folder: the agent's, writable for the user's group, sticky —
 * the user creates and removes its own entries there, but cannot rename or
 * replace `.git` or the state folder (a planted `.git` would run its
 * configuration in the agent's git).
 */
export async function closeTopFolder(user: CommandUser): Promise<void> {
  await chown(user.checkout, process.getuid?.() ?? 0, user.gid);
  await chmod(user.checkout, 0o1770);
}

/**
 * Lets the command user reach the checkout: every folder above it gets the
 * search bit for others (`o+x`: pass through, not list), as a checkout under
 * a private temporary folder would otherwise be out of reach.
 */
export async function openPathTo(dir: string): Promise<string[]> {
  const opened: string[] = [];
  let current = path.dirname(await realpath(dir));
  for (;;) {
    const info = await stat(current);
    if ((info.mode & 0o001) === 0) {
      await chmod(current, (info.mode & 0o7777) | 0o001);
      opened.push(current);
    }
    const parent = path.dirname(current);
    if (parent === current) return opened;
    current = parent;
  }
}
