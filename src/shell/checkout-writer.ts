/**
 * Writes files of the checkout with no more rights than the command user.
 *
 * Once commands of the command user may have run in the checkout, a
 * background process of that user can swap any folder of it for a symbolic
 * link at any moment, also between the agent's path check and its write. A
 * write by the agent (root) could then land anywhere, over a file only root
 * may change. So the writes themselves run as the command user, in a small
 * writer process started with its uid and gid and an empty environment (the
 * same pattern as checkout-reader.ts): whatever a swapped link leads to, the
 * writer changes only what the command user could change anyway. On top of
 * that it follows no link: a folder on the path that is a link refuses the
 * path, folders are created one by one (as the user), and the file is opened
 * with `O_NOFOLLOW`. What it writes is the user's already: no hand-over.
 *
 * Before the first command of a separate user (or without one) nobody but
 * the agent has written the checkout, and the same writing code runs in this
 * process; what it writes is then handed to the command user as written.
 */
import * as fs from 'node:fs';
import path from 'node:path';
import * as z from 'zod';
import type { CommandIsolation, CommandUser } from '../core/isolation.ts';
import type { Shell } from '../core/shell-port.ts';
import { commandUserOf, handOverWritten } from './hand-over.ts';
import { lazyExecaShell } from './lazy-shell.ts';
import { shellLine } from './quote.ts';

/** One change to a path of the checkout (relative to its real path). */
export type CheckoutWrite =
  /** Create or replace a regular file with `content`; missing folders are created. */
  | { op: 'write'; rel: string; content: Buffer }
  /** Remove a file or a link (never a folder). */
  | { op: 'remove'; rel: string };

/** What became of one change, in order. */
export type CheckoutWriteResult =
  | { kind: 'written'; created: boolean }
  | { kind: 'removed' }
  /** `remove` of a path that is not there. */
  | { kind: 'missing' }
  /** Nothing changed at this path: why (a folder on the path is a link, a folder, …). */
  | { kind: 'refused'; why: string };

type WireChange = { op: 'write'; rel: string; data: string } | { op: 'remove'; rel: string };

const wireResult = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('written'), created: z.boolean() }),
  z.strictObject({ kind: z.literal('removed') }),
  z.strictObject({ kind: z.literal('missing') }),
  z.strictObject({ kind: z.literal('refused'), why: z.string().max(200) }),
]);

/**
 * Applies `changes` under `root`, one answer per change, in order. Self-
 * contained (it uses only its parameters), because its source is also the
 * program of the writer process. No link is followed: a folder on the path
 * must be a real folder (created here, one name at a time, when missing)
 * and resolve to itself; the file is opened with `O_NOFOLLOW` and written
 * only when the opened entry is a regular file; a removal unlinks the name
 * itself.
 */
function writeEntries(
  fsm: typeof fs,
  pathm: typeof path,
  root: string,
  changes: readonly WireChange[],
): CheckoutWriteResult[] {
  const code = (error: unknown) => (error as NodeJS.ErrnoException).code ?? 'error';
  const REASONS: Record<string, string> = {
    EACCES: 'permission denied',
    EPERM: 'permission denied',
    ELOOP: 'it is a symbolic link',
    EISDIR: 'it is a folder',
    ENOTDIR: 'a part of the path is not a folder',
    ENOENT: 'a folder on its path is gone',
    ENXIO: 'it is not a regular file',
    ENOSPC: 'no space left on the device',
    EROFS: 'the file system is read-only',
  };
  const why = (error: unknown) => REASONS[code(error)] ?? `cannot be written (${code(error)})`;
  /** The folder of `rel`, made when missing; a string says why it cannot be used. */
  const folderOf = (rel: string, make: boolean): { folder: string } | { refused: string } => {
    const parts = rel.split('/');
    if (parts.some((p) => p === '' || p === '.' || p === '..'))
      return { refused: 'the path is not a plain relative path' };
    let current = root;
    for (const part of parts.slice(0, -1)) {
      current = pathm.join(current, part);
      let info: fs.Stats | undefined;
      try {
        info = fsm.lstatSync(current);
      } catch (error) {
        if (code(error) !== 'ENOENT') return { refused: why(error) };
      }
      if (!info && make) {
        try {
          fsm.mkdirSync(current);
        } catch (error) {
          if (code(error) !== 'EEXIST') return { refused: why(error) };
        }
        try {
          info = fsm.lstatSync(current);
        } catch (error) {
          // made and gone again: something else is changing the folder
          return { refused: why(error) };
        }
      }
      if (!info) return { refused: 'missing' };
      if (info.isSymbolicLink()) return { refused: 'a folder on its path is a symbolic link' };
      if (!info.isDirectory()) return { refused: 'a part of the path is not a folder' };
    }
    const folder = pathm.dirname(pathm.join(root, rel));
    let real: string;
    try {
      real = fsm.realpathSync(folder);
    } catch (error) {
      return { refused: why(error) };
    }
    if (real !== folder) return { refused: 'a folder on its path is a symbolic link' };
    return { folder };
  };
  const write = (rel: string, data: Buffer): CheckoutWriteResult => {
    const found = folderOf(rel, true);
    if ('refused' in found) return { kind: 'refused', why: found.refused };
    const full = pathm.join(root, rel);
    const c = fsm.constants;
    const flags = c.O_WRONLY | c.O_NOFOLLOW | c.O_NONBLOCK;
    let fd: number;
    let created = true;
    try {
      fd = fsm.openSync(full, flags | c.O_CREAT | c.O_EXCL, 0o666);
    } catch (error) {
      if (code(error) !== 'EEXIST') return { kind: 'refused', why: why(error) };
      created = false;
      try {
        fd = fsm.openSync(full, flags);
      } catch (again) {
        return { kind: 'refused', why: why(again) };
      }
    }
    try {
      if (!fsm.fstatSync(fd).isFile()) return { kind: 'refused', why: 'it is not a regular file' };
      fsm.ftruncateSync(fd, 0);
      let written = 0;
      while (written < data.length)
        written += fsm.writeSync(fd, data, written, data.length - written, written);
      return { kind: 'written', created };
    } catch (error) {
      return { kind: 'refused', why: why(error) };
    } finally {
      fsm.closeSync(fd);
    }
  };
  const remove = (rel: string): CheckoutWriteResult => {
    const found = folderOf(rel, false);
    if ('refused' in found)
      return found.refused === 'missing'
        ? { kind: 'missing' }
        : { kind: 'refused', why: found.refused };
    const full = pathm.join(root, rel);
    try {
      if (fsm.lstatSync(full).isDirectory()) return { kind: 'refused', why: 'it is a folder' };
      fsm.unlinkSync(full);
      return { kind: 'removed' };
    } catch (error) {
      return code(error) === 'ENOENT' ? { kind: 'missing' } : { kind: 'refused', why: why(error) };
    }
  };
  return changes.map((change): CheckoutWriteResult => {
    try {
      return change.op === 'write'
        ? write(change.rel, Buffer.from(change.data, 'base64'))
        : remove(change.rel);
    } catch (error) {
      return { kind: 'refused', why: why(error) };
    }
  });
}

/**
 * The writer process: the request on stdin, one JSON line per change on
 * stdout. `__name` stands in for the helper a bundler may wrap named
 * functions in (esbuild's keepNames).
 */
const WRITER_PROGRAM = `
const __name = (f) => f;
const fs = require('node:fs');
const path = require('node:path');
const request = JSON.parse(fs.readFileSync(0, 'utf8'));
const writeEntries = ${writeEntries.toString()};
for (const result of writeEntries(fs, path, request.root, request.changes))
  fs.writeSync(1, JSON.stringify(result) + '\\n');
`;

function toWire(change: CheckoutWrite): WireChange {
  return change.op === 'write'
    ? { op: 'write', rel: change.rel, data: change.content.toString('base64') }
    : change;
}

/** Runs the writer as `user`; throws when it does not answer every change. */
async function writeAs(
  user: CommandUser,
  root: string,
  changes: readonly CheckoutWrite[],
  shell: Shell,
): Promise<CheckoutWriteResult[]> {
  const result = await shell.run({
    command: `exec ${shellLine([process.execPath, '-e', WRITER_PROGRAM])}`,
    cwd: '/',
    env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' },
    input: JSON.stringify({ root, changes: changes.map(toWire) }),
    runAs: { uid: user.uid, gid: user.gid },
  });
  const lines = result.stdout.split('\n').filter(Boolean);
  if (result.exitCode !== 0 || lines.length !== changes.length)
    throw new Error(
      `the checkout could not be written as the command user (exit ${result.exitCode ?? result.signal ?? 'none'}): ${result.stderr.slice(0, 500)}`,
    );
  return lines.map((line, i) => {
    const parsed = wireResult.safeParse(JSON.parse(line));
    if (!parsed.success)
      throw new Error(
        `the checkout writer answered nonsense for ${changes[i]!.rel}: ${parsed.error.message}`,
      );
    return parsed.data;
  });
}

export interface WriteCheckoutOptions {
  /** Who runs commands: what is written before the first command is handed to its user. */
  isolation?: CommandIsolation | undefined;
  /** The shell the writer process runs through (default: execa). */
  shell?: Shell;
}

/**
 * Applies changes to the checkout (paths relative to `root`, its real path):
 * as the command user once its commands may have run there, in this process
 * before (and then hands what was written to that user). One answer per
 * change, in order; a change that cannot be made is `refused` with the
 * reason and changes nothing. Throws only when the writer process fails.
 */
export async function writeCheckout(
  root: string,
  changes: readonly CheckoutWrite[],
  options: WriteCheckoutOptions = {},
): Promise<CheckoutWriteResult[]> {
  if (changes.length === 0) return [];
  const user = commandUserOf(root);
  if (user) return writeAs(user, root, changes, options.shell ?? lazyExecaShell());
  const results = writeEntries(fs, path, root, changes.map(toWire));
  for (const [i, change] of changes.entries())
    if (results[i]!.kind === 'written')
      // the command user may change what the agent wrote: given now, never by a walk of the tree
      await handOverWritten(options.isolation, path.join(root, change.rel));
  return results;
}
