/**
 * Reads files of the checkout with no more rights than the command user.
 *
 * Once the checkout is handed to the command user, a background process of
 * that user can swap any folder of it for a symbolic link at any moment:
 * between a check and an open, and between the parts of one path. A check
 * by the agent (root) cannot close that race, as Node has no `openat`. So
 * the reads themselves run as the command user, in a small reader process
 * started with its uid and gid and an empty environment: whatever a swapped
 * link leads to, the reader reaches only what the command user could read
 * (and so could have copied into the checkout) anyway — never a file only
 * root may read, never `/proc/<agent>/environ`.
 *
 * Before the first command of a separate user (or without one) nobody but
 * the agent has written the checkout, and the same reading code runs in
 * this process.
 */
import * as fs from 'node:fs';
import path from 'node:path';
import type { WireEntry } from './checkout-wire.ts';
import type { CommandUser } from '../core/isolation.ts';
import type { Shell } from '../core/shell-port.ts';
import type { CheckoutEntry, ReadCheckoutOptions } from '../core/checkout-port.ts';

export type { CheckoutEntry, ReadCheckoutOptions };
import { commandUserOf } from './hand-over.ts';
import { lazyExecaShell } from './lazy-shell.ts';
import { shellLine } from './quote.ts';

/**
 * Reads `rels` under `root`, one answer per path, in order. Self-contained
 * (it uses only its parameters), because its source is also the program of
 * the reader process. A folder on a path must resolve to itself (a link
 * there is not followed), a link is read as a link, and a file is opened
 * with `O_NOFOLLOW` and read only when the opened entry is a regular file.
 */
function readEntries(
  fsm: typeof fs,
  pathm: typeof path,
  root: string,
  rels: readonly string[],
  cap: number,
): WireEntry[] {
  const gone = (error: unknown) =>
    ['ENOENT', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? '');
  const code = (error: unknown) => (error as NodeJS.ErrnoException).code ?? 'error';
  const one = (rel: string): WireEntry => {
    const full = pathm.join(root, rel);
    const folder = pathm.dirname(full);
    let real: string;
    try {
      real = fsm.realpathSync(folder);
    } catch (error) {
      return gone(error)
        ? { kind: 'missing' }
        : { kind: 'skip', why: `unreadable (${code(error)})` };
    }
    if (real !== folder) return { kind: 'skip', why: 'a folder on its path is a link' };
    let info: fs.Stats;
    try {
      info = fsm.lstatSync(full);
    } catch (error) {
      return gone(error)
        ? { kind: 'missing' }
        : { kind: 'skip', why: `unreadable (${code(error)})` };
    }
    if (info.isSymbolicLink())
      return { kind: 'link', data: fsm.readlinkSync(full, 'buffer').toString('base64') };
    if (info.isDirectory()) return { kind: 'folder' };
    if (!info.isFile()) return { kind: 'skip', why: 'not a file' };
    let fd: number;
    try {
      const c = fsm.constants;
      fd = fsm.openSync(full, c.O_RDONLY | c.O_NOFOLLOW | c.O_NONBLOCK);
    } catch (error) {
      return { kind: 'skip', why: `unreadable (${code(error)})` };
    }
    try {
      const opened = fsm.fstatSync(fd);
      if (!opened.isFile()) return { kind: 'skip', why: 'not a file' };
      const buffer = Buffer.alloc(Math.min(opened.size, cap));
      let filled = 0;
      while (filled < buffer.length) {
        const got = fsm.readSync(fd, buffer, filled, buffer.length - filled, filled);
        if (got === 0) break;
        filled += got;
      }
      return {
        kind: 'file',
        executable: (opened.mode & 0o100) !== 0,
        size: opened.size,
        data: buffer.subarray(0, filled).toString('base64'),
      };
    } catch (error) {
      return { kind: 'skip', why: `unreadable (${code(error)})` };
    } finally {
      fsm.closeSync(fd);
    }
  };
  return rels.map((rel): WireEntry => {
    try {
      return one(rel);
    } catch (error) {
      // changed between two steps (a link swapped back, say): not read
      return { kind: 'skip', why: `unreadable (${code(error)})` };
    }
  });
}

/**
 * The reader process: the request on stdin, one JSON line per path on
 * stdout. `__name` stands in for the helper a bundler may wrap named
 * functions in (esbuild's keepNames).
 */
const READER_PROGRAM = `
const __name = (f) => f;
const fs = require('node:fs');
const path = require('node:path');
const request = JSON.parse(fs.readFileSync(0, 'utf8'));
const readEntries = ${readEntries.toString()};
for (const entry of readEntries(fs, path, request.root, request.rels, request.cap))
  fs.writeSync(1, JSON.stringify(entry) + '\\n');
`;

function fromWire(entry: WireEntry): CheckoutEntry {
  if (entry.kind === 'link') return { kind: 'link', target: Buffer.from(entry.data, 'base64') };
  if (entry.kind !== 'file') return entry;
  const { data, ...rest } = entry;
  return { ...rest, content: Buffer.from(data, 'base64') };
}

const NO_CAP = 2 ** 31 - 1;

/** Runs the reader as `user`; throws when it does not answer every path. */
async function readAs(
  user: CommandUser,
  root: string,
  rels: readonly string[],
  cap: number,
  shell: Shell,
): Promise<CheckoutEntry[]> {
  const result = await shell.run({
    command: `exec ${shellLine([process.execPath, '-e', READER_PROGRAM])}`,
    cwd: '/',
    env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' },
    input: JSON.stringify({ root, rels, cap }),
    runAs: { uid: user.uid, gid: user.gid },
    // base64 of what is read, with room to spare: never cut
    maxOutputBytes: 2 ** 31 - 1,
  });
  const lines = result.stdout.split('\n').filter(Boolean);
  if (result.exitCode !== 0 || lines.length !== rels.length)
    throw new Error(
      `the checkout could not be read as the command user (exit ${result.exitCode ?? result.signal ?? 'none'}): ${result.stderr.slice(0, 500)}`,
    );
  // the answers' schema loads with the first read as the user (nothing before needs zod)
  const { wireEntry } = await import('./checkout-wire.ts');
  return lines.map((line, i) => {
    const parsed = wireEntry.safeParse(JSON.parse(line));
    if (!parsed.success)
      throw new Error(
        `the checkout reader answered nonsense for ${rels[i]}: ${parsed.error.message}`,
      );
    return fromWire(parsed.data);
  });
}

/**
 * Reads paths of the checkout (relative to `root`, its real path): as the
 * command user once its commands may have run there, in this process
 * before. One answer per path, in order; an entry that cannot be read is a
 * `skip` with the reason. Throws only when the reader process fails.
 */
export async function readCheckout(
  root: string,
  rels: readonly string[],
  options: ReadCheckoutOptions = {},
): Promise<CheckoutEntry[]> {
  if (rels.length === 0) return [];
  const cap = Math.min(options.cap ?? NO_CAP, NO_CAP);
  const user = commandUserOf(root);
  if (user) return readAs(user, root, rels, cap, options.shell ?? lazyExecaShell());
  return readEntries(fs, path, root, rels, cap).map(fromWire);
}

/** One entry of a folder listing, relative to the checkout, `/`-separated. */
export interface ListedEntry {
  rel: string;
  kind: 'file' | 'dir' | 'link' | 'other';
  /** Bytes, for a regular file. */
  size: number;
}

export type CheckoutListing =
  | { kind: 'listed'; entries: ListedEntry[]; truncated: boolean }
  | { kind: 'missing' }
  | { kind: 'not-folder' }
  /** The start folder is a link, or cannot be read. */
  | { kind: 'refused'; why: string };

interface ListRequest {
  root: string;
  /** The folder to list, relative to `root` ('' for the root). */
  start: string;
  recursive: boolean;
  limit: number;
  /** Folder names never descended into (`.git` is never listed at all). */
  skipped: readonly string[];
}

/**
 * Lists a folder of the checkout breadth-first, names sorted, without
 * following a link: a folder that no longer resolves to itself (swapped for
 * a link) is not read. Self-contained: its source is also the lister
 * process's program.
 */
function listEntries(fsm: typeof fs, pathm: typeof path, request: ListRequest): CheckoutListing {
  const { root, start, recursive, limit, skipped } = request;
  const first = start === '' ? root : pathm.join(root, start);
  let info: fs.Stats;
  try {
    info = fsm.lstatSync(first);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    return ['ENOENT', 'ENOTDIR'].includes(code)
      ? { kind: 'missing' }
      : { kind: 'refused', why: `unreadable (${code})` };
  }
  if (info.isSymbolicLink()) return { kind: 'refused', why: 'it is a symbolic link' };
  if (!info.isDirectory()) return { kind: 'not-folder' };
  const entries: ListedEntry[] = [];
  const queue = [{ abs: first, rel: start }];
  while (queue.length > 0) {
    const dir = queue.shift()!;
    let items: fs.Dirent[];
    try {
      if (fsm.realpathSync(dir.abs) !== dir.abs) continue;
      items = fsm.readdirSync(dir.abs, { withFileTypes: true });
    } catch {
      continue; // gone or unreadable meanwhile
    }
    items.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const item of items) {
      if (item.name === '.git') continue;
      const rel = dir.rel === '' ? item.name : `${dir.rel}/${item.name}`;
      const abs = pathm.join(dir.abs, item.name);
      const kind = item.isSymbolicLink()
        ? 'link'
        : item.isDirectory()
          ? 'dir'
          : item.isFile()
            ? 'file'
            : 'other';
      if (entries.length >= limit) return { kind: 'listed', entries, truncated: true };
      let size = 0;
      if (kind === 'file')
        try {
          size = fsm.lstatSync(abs).size;
        } catch {
          continue;
        }
      entries.push({ rel, kind, size });
      if (kind === 'dir' && recursive && !skipped.includes(item.name)) queue.push({ abs, rel });
    }
  }
  return { kind: 'listed', entries, truncated: false };
}

/** The lister process: the request on stdin, the listing as one JSON line on stdout. */
const LISTER_PROGRAM = `
const __name = (f) => f;
const fs = require('node:fs');
const path = require('node:path');
const listEntries = ${listEntries.toString()};
fs.writeSync(1, JSON.stringify(listEntries(fs, path, JSON.parse(fs.readFileSync(0, 'utf8')))) + '\\n');
`;

/**
 * Lists a folder of the checkout (`start` relative to `root`, its real
 * path; '' for the root): as the command user once its commands may have
 * run there, in this process before. No link is followed; `.git` is never
 * listed. Throws only when the lister process fails.
 */
export async function listCheckout(
  root: string,
  start: string,
  options: { recursive: boolean; limit: number; skipped: Iterable<string>; shell?: Shell },
): Promise<CheckoutListing> {
  const request: ListRequest = {
    root,
    start,
    recursive: options.recursive,
    limit: options.limit,
    skipped: [...options.skipped],
  };
  const user = commandUserOf(root);
  if (!user) return listEntries(fs, path, request);
  const result = await (options.shell ?? lazyExecaShell()).run({
    command: `exec ${shellLine([process.execPath, '-e', LISTER_PROGRAM])}`,
    cwd: '/',
    env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' },
    input: JSON.stringify(request),
    runAs: { uid: user.uid, gid: user.gid },
    maxOutputBytes: 2 ** 31 - 1,
  });
  const { wireListing } = await import('./checkout-wire.ts');
  const parsed =
    result.exitCode === 0 ? wireListing.safeParse(JSON.parse(result.stdout)) : undefined;
  if (!parsed?.success)
    throw new Error(
      `the checkout could not be listed as the command user (exit ${result.exitCode ?? result.signal ?? 'none'}): ${result.stderr.slice(0, 500)}`,
    );
  return parsed.data;
}
