import { chmod, chown, lchown, lstat, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import type { CommandIsolation, CommandUser } from '../core/isolation.ts';
import { Git } from './git.ts';
import { lazyExecaShell } from './lazy-shell.ts';
import { shellLine } from './quote.ts';

/**
 * Gives one entry to the command user: never through a folder that no
 * longer resolves to itself (a folder swapped for a link), never a second
 * name of a file (a hard link may lead outside), the link itself for a
 * symbolic link (`lchown`). Returns the entry's former state, or undefined.
 */
async function give(user: CommandUser, entry: string) {
  const info = await lstat(entry).catch(() => undefined);
  if (!info || (info.uid === user.uid && info.gid === user.gid)) return info;
  if (!info.isDirectory() && info.nlink > 1) return undefined;
  if ((await realpath(path.dirname(entry)).catch(() => '')) !== path.dirname(entry)) return;
  await lchown(entry, user.uid, user.gid).catch(() => undefined);
  return info;
}

const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** Checkouts handed over whole (or being handed over): later, only what the agent writes is given. */
const handedOver = new WeakMap<CommandUser, Promise<void>>();
/** Checkouts, by real path, where commands of a command user may have run. */
const commandsRan = new Map<string, CommandUser>();

/** Records that commands of `user` run in its checkout from now on (called before the first). */
export async function commandsRunIn(user: CommandUser): Promise<void> {
  commandsRan.set(await realpath(user.checkout), user);
}

/**
 * The command user whose commands may have run in a checkout (or a folder
 * inside it), if any: its files may have been changed since by that user's
 * processes, so the agent reads them as that user (checkout-reader.ts).
 */
export function commandUserOf(dir: string): CommandUser | undefined {
  for (const [root, user] of commandsRan)
    if (dir === root || dir.startsWith(`${root}/`)) return user;
  return undefined;
}

/**
 * Gives the checkout to the command user before its first command
 * (docs/security.md, "Commands run as another user"), once: every entry but the
 * folders in `user.keep` (`.git`, the state
 * folder: the agent's git never runs in a `.git` a command could change) and
 * the checkout folder itself (see `closeTopFolder`). One `find` does it, in
 * the time of a directory walk in C: symbolic links are not followed (the
 * link itself changes owner), a file with more than one name (a hard link)
 * is left alone. After that, nothing is walked again: what the agent writes
 * later is given as it is written (`handOverWritten`), so a command costs no
 * walk of the tree, however large the checkout.
 */
export function handOverCheckout(user: CommandUser): Promise<void> {
  let once = handedOver.get(user);
  if (!once) {
    once = handOverWhole(user);
    handedOver.set(user, once);
    // a failed hand-over is tried again before the next command
    once.catch(() => handedOver.delete(user));
  }
  return once;
}

async function handOverWhole(user: CommandUser): Promise<void> {
  const root = await realpath(user.checkout);
  const prune = user.keep.flatMap((k, i) => [
    ...(i > 0 ? ['-o'] : []),
    '-path',
    // find's -path takes a pattern: the checkout's own name is taken literally
    path.join(root, k).replace(/[[\]*?\\]/g, '\\$&'),
  ]);
  const owner = `${user.uid}:${user.gid}`;
  const command = [
    'find',
    '-P',
    root,
    '-mindepth',
    '1',
    ...(prune.length > 0 ? ['(', ...prune, ')', '-prune', '-o'] : []),
    '(',
    '-type',
    'd',
    '-o',
    '-links',
    '1',
    ')',
    '!',
    '(',
    '-user',
    String(user.uid),
    '-group',
    String(user.gid),
    ')',
    '-exec',
    'chown',
    '-h',
    owner,
    '{}',
    '+',
  ];
  const result = await lazyExecaShell().run({
    command: `exec ${shellLine(command)}`,
    cwd: root,
    // the system's own find and chown, never one found in a folder a command can write
    env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' },
  });
  if (result.exitCode !== 0)
    throw new Error(`the checkout could not be handed to the command user: ${result.stderr}`);
  await refreshIndex(root);
}

/**
 * The hand-over changed every file's owner, and so its ctime: git's index
 * no longer matches, and the next `git status` or `git diff` would read
 * every file again. One refresh now, before any command has run (so no
 * file read here can have been swapped), records the new stat data in the
 * agent's index. Not a git work tree: nothing to do.
 */
async function refreshIndex(root: string): Promise<void> {
  // root's own folders only, never one a command can write
  const git = new Git({ cwd: root, hostEnv: { PATH: SYSTEM_PATH }, shell: lazyExecaShell() });
  await git.run(['update-index', '-q', '--refresh']);
}

/**
 * Gives what the agent just wrote to the command user: the file and every
 * folder above it the write created, up to the checkout (the folders in
 * `user.keep` stay the agent's). Nothing happens without a separate user.
 */
export async function handOverWritten(
  isolation: CommandIsolation | undefined,
  file: string,
): Promise<void> {
  if (isolation?.kind !== 'separate-user') return;
  const { user } = isolation;
  const root = await realpath(user.checkout);
  const rel = path.relative(root, file);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return;
  if (user.keep.some((k) => rel === k || rel.startsWith(`${k}/`))) return;
  for (let current = file; current !== root; current = path.dirname(current)) {
    const before = await give(user, current);
    // a folder that was the user's already: the ones above it are too
    if (before && current !== file && before.uid === user.uid) return;
  }
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
