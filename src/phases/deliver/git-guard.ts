/**
 * The repository's git control files, guarded for delivery (docs/security.md, "The trust boundary").
 *
 * The model's `run_command` runs in the checkout and can write anything
 * there, `.git` included (the path sandbox binds only the file tools). A hook,
 * a filter or `core.fsmonitor` in `.git/config`, or a `url.*.insteadOf`
 * rewrite to an `ext::` transport, would make delivery's own git — which holds
 * the push token — run the model's code. So delivery runs git with hooks off
 * and gives the token only to push and fetch; and the run takes a snapshot of
 * these files before any tool runs, and delivery refuses to go on when they
 * changed.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { ModelBehaviorError } from '../../errors/errors.ts';

/** Files of the git directory whose content can run commands or redirect a push. */
const CONTROL_FILES = ['config', 'config.worktree', 'info/attributes', 'commondir'];
const CONTROL_DIRS = ['hooks'];

export interface GitControlSnapshot {
  gitDir: string;
  digest: string;
  /** The files that went into the digest, relative to the git directory. */
  files: string[];
}

/** The git directory of a checkout: `.git`, or the folder a `.git` file points to (worktrees). */
export async function gitDirOf(repoDir: string): Promise<string> {
  const dotGit = path.join(repoDir, '.git');
  const info = await stat(dotGit);
  if (info.isDirectory()) return dotGit;
  const text = await readFile(dotGit, 'utf8');
  const match = /^gitdir:\s*(.+)$/m.exec(text);
  if (!match) throw new Error(`${dotGit}: not a git directory pointer`);
  return path.resolve(repoDir, match[1]!.trim());
}

async function entry(gitDir: string, rel: string): Promise<string | undefined> {
  try {
    const file = path.join(gitDir, rel);
    const info = await stat(file);
    if (!info.isFile()) return undefined;
    const digest = createHash('sha256')
      .update(await readFile(file))
      .digest('hex');
    return `${rel}\u0000${(info.mode & 0o777).toString(8)}\u0000${digest}`;
  } catch {
    return undefined;
  }
}

export async function snapshotGitControl(repoDir: string): Promise<GitControlSnapshot> {
  const gitDir = await gitDirOf(repoDir);
  const names = [...CONTROL_FILES];
  for (const dir of CONTROL_DIRS) {
    const listed = await readdir(path.join(gitDir, dir)).catch(() => [] as string[]);
    names.push(...listed.sort().map((name) => `${dir}/${name}`));
  }
  const entries: string[] = [];
  const files: string[] = [];
  for (const rel of names) {
    const line = await entry(gitDir, rel);
    if (line === undefined) continue;
    entries.push(line);
    files.push(rel);
  }
  const digest = createHash('sha256').update(entries.join('\n')).digest('hex');
  return { gitDir, digest, files };
}

/** Throws when the control files differ from `before` (taken before any tool ran). */
export async function assertGitControlUnchanged(
  repoDir: string,
  before: GitControlSnapshot,
): Promise<void> {
  const now = await snapshotGitControl(repoDir);
  if (now.digest === before.digest) return;
  const added = now.files.filter((f) => !before.files.includes(f));
  const removed = before.files.filter((f) => !now.files.includes(f));
  const detail = [
    ...added.map((f) => `added .git/${f}`),
    ...removed.map((f) => `removed .git/${f}`),
  ];
  throw new ModelBehaviorError(
    `the run changed the repository's git control files (${detail.length > 0 ? detail.join(', ') : 'config or hooks changed'}); the change is not delivered`,
    {
      where: 'delivery',
      hintKey: 'hint.deliver.gitGuard',
    },
  );
}
