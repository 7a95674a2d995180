/**
 * Staging for delivery, built by the agent itself. The checkout's files are
 * the command user's; its git directory and index are the agent's. Git is
 * asked only which paths changed (`git status` with submodules ignored, no
 * hooks, no monitor: src/shell/git.ts). The agent then reads each changed
 * file — through no symbolic link, the last name opened with `O_NOFOLLOW`,
 * and, once the checkout is the command user's, as that user
 * (src/shell/checkout-reader.ts) — writes its content as a blob into the
 * agent's object store and puts it into the index with `update-index
 * --index-info`. So no filter, attribute or configuration the command user
 * wrote is ever applied to the change, and a link swapped in at any moment
 * reaches nothing the command user could not read anyway.
 *
 * Submodules stay as they are: a path the index holds as a submodule (a
 * gitlink), and anything below it, is never changed, and a folder that holds
 * a repository of its own (`folder/.git`) is never staged as one. A
 * repository without submodules never gets one from delivery.
 */
import { mkdir, realpath, rename, stat, writeFile } from 'node:fs/promises';
import { createHash, randomBytes } from 'node:crypto';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import type { CheckoutEntry, CheckoutReader } from '../../core/checkout-port.ts';
import type { Git } from './git.ts';

const GITLINK = '160000';

export interface StagedSummary {
  /** Paths whose new content (or removal) went into the index. */
  staged: string[];
  /** Changed paths left out: submodules, nested repositories, unreadable entries. */
  skipped: { path: string; why: string }[];
}

interface Store {
  objectsDir: string;
  hash: 'sha1' | 'sha256';
}

/** Changed paths as `git status` sees them (tracked and untracked; no submodule looked into). */
async function changedPaths(git: Git): Promise<{ rel: string; untracked: boolean }[]> {
  const out = await git.must([
    'status',
    '--porcelain=v1',
    '-z',
    '--no-renames',
    '--untracked-files=all',
    '--ignore-submodules=all',
  ]);
  return out
    .split('\0')
    .filter((entry) => entry.length > 3)
    .map((entry) => ({ rel: entry.slice(3), untracked: entry.startsWith('??') }));
}

/**
 * The gitlinks (submodule paths) among the changed paths and the folders
 * above them. The checkout's index is the commit's until the agent stages
 * (nothing else writes it), so the commit's tree is asked for exactly those
 * names: a few entries, where listing the whole index costs a read of every
 * entry on a large checkout. A repository without a commit lists its index.
 */
async function gitlinks(git: Git, paths: readonly string[]): Promise<Set<string>> {
  const prefixes = new Set<string>();
  for (const rel of paths) {
    const parts = rel.replace(/\/+$/, '').split('/');
    for (let i = 1; i <= parts.length; i++) prefixes.add(parts.slice(0, i).join('/'));
  }
  const links = new Set<string>();
  const names = [...prefixes];
  const head = await git.run(['rev-parse', '--verify', '-q', 'HEAD^{tree}']);
  if (head.exitCode !== 0) {
    for (const entry of (await git.must(['ls-files', '-z', '--stage'])).split('\0'))
      if (entry.startsWith(`${GITLINK} `)) links.add(entry.slice(entry.indexOf('\t') + 1));
    return links;
  }
  for (let start = 0; start < names.length; start += 500) {
    const out = await git.must([
      '--literal-pathspecs',
      'ls-tree',
      '-z',
      'HEAD',
      '--',
      ...names.slice(start, start + 500),
    ]);
    for (const entry of out.split('\0'))
      if (entry.startsWith(`${GITLINK} `)) links.add(entry.slice(entry.indexOf('\t') + 1));
  }
  return links;
}

function underGitlink(rel: string, links: ReadonlySet<string>): boolean {
  if (links.size === 0) return false;
  const parts = rel.split('/');
  for (let i = 1; i <= parts.length; i++) if (links.has(parts.slice(0, i).join('/'))) return true;
  return false;
}

/** Where blobs go: the checkout's object store, and its hash (sha1 or sha256). */
async function objectStore(git: Git, repoDir: string): Promise<Store> {
  const [objects, format] = (
    await git.must(['rev-parse', '--git-path', 'objects', '--show-object-format'])
  )
    .trim()
    .split('\n');
  return {
    objectsDir: path.resolve(repoDir, objects!.trim()),
    hash: format?.trim() === 'sha256' ? 'sha256' : 'sha1',
  };
}

/** Writes a loose blob object (git's format: zlib of `blob <size>\0<content>`); returns its id. */
async function writeBlob(store: Store, content: Buffer): Promise<string> {
  const header = Buffer.from(`blob ${content.length}\0`);
  const id = createHash(store.hash).update(header).update(content).digest('hex');
  const dir = path.join(store.objectsDir, id.slice(0, 2));
  const file = path.join(dir, id.slice(2));
  if (await stat(file).catch(() => undefined)) return id;
  await mkdir(dir, { recursive: true });
  const temporary = path.join(dir, `tmp_obj_${randomBytes(6).toString('hex')}`);
  await writeFile(temporary, deflateSync(Buffer.concat([header, content])), {
    mode: 0o444,
    flag: 'wx',
  });
  await rename(temporary, file);
  return id;
}

type Entry =
  | { kind: 'remove' }
  | { kind: 'blob'; mode: '100644' | '100755' | '120000'; content: Buffer }
  | { kind: 'skip'; why: string };

/** What a changed path holds now, from what was read of it (checkout-reader.ts). */
function entryOf(read: CheckoutEntry, untracked: boolean): Entry {
  switch (read.kind) {
    case 'missing':
      return { kind: 'remove' };
    case 'link':
      return { kind: 'blob', mode: '120000', content: read.target };
    // a tracked file that became a folder goes; a new folder git lists whole holds a repository
    case 'folder':
      return untracked ? { kind: 'skip', why: 'a repository of its own' } : { kind: 'remove' };
    case 'file':
      return { kind: 'blob', mode: read.executable ? '100755' : '100644', content: read.content };
    case 'skip':
      return read;
  }
}

function leftOut(rel: string, stateDir: string): boolean {
  const state = path.posix.normalize(stateDir).replace(/\/+$/, '');
  return (
    rel === state ||
    rel.startsWith(`${state}/`) ||
    rel.split('/').some((part) => part.toLowerCase() === '.git')
  );
}

/**
 * Puts every change of the checkout (the state folder apart) into the
 * checkout's index, from contents the agent read itself. Never throws for an
 * entry it cannot read: that path is left out and named.
 */
export async function stageChanges(
  git: Git,
  repoDir: string,
  stateDir: string,
  readCheckout: CheckoutReader,
): Promise<StagedSummary> {
  const root = await realpath(repoDir);
  const changed = (await changedPaths(git)).filter(({ rel }) => !leftOut(rel, stateDir));
  const summary: StagedSummary = { staged: [], skipped: [] };
  if (changed.length === 0) return summary;
  const links = await gitlinks(
    git,
    changed.map(({ rel }) => rel),
  );
  const store = await objectStore(git, repoDir);
  const zero = '0'.repeat(store.hash === 'sha256' ? 64 : 40);
  const removals: string[] = [];
  const additions: string[] = [];
  const wanted: { rel: string; untracked: boolean }[] = [];
  for (const { rel: listed, untracked } of changed) {
    const rel = listed.replace(/\/+$/, '');
    if (underGitlink(rel, links)) summary.skipped.push({ path: rel, why: 'a submodule' });
    else wanted.push({ rel, untracked });
  }
  const read = await readCheckout(
    root,
    wanted.map(({ rel }) => rel),
  );
  for (const [i, { rel, untracked }] of wanted.entries()) {
    const entry = entryOf(read[i]!, untracked);
    if (entry.kind === 'skip') {
      summary.skipped.push({ path: rel, why: entry.why });
      continue;
    }
    if (entry.kind === 'remove') removals.push(`0 ${zero}\t${rel}\0`);
    else additions.push(`${entry.mode} ${await writeBlob(store, entry.content)}\t${rel}\0`);
    summary.staged.push(rel);
  }
  // removals first: a file that became a folder (or the other way) leaves no conflict behind
  if (removals.length + additions.length > 0)
    await git.must(['update-index', '-z', '--index-info'], [...removals, ...additions].join(''));
  return summary;
}
