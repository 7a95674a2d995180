/**
 * The change under review: the working tree against `HEAD` (the agent
 * commits only at delivery), new untracked files included, the state folder
 * left out. Read-only: the index is never touched.
 */
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { structuredPatch } from 'diff';
import type { Shell } from '../../core/shell-port.ts';
import type { Logger } from '../../log/logger.ts';
import type { Redactor } from '../../log/redact.ts';
import type { CheckoutEntry, CheckoutPort, GitRunner } from '../../core/checkout-port.ts';
import { readInRepo } from '../../tools/repo-read.ts';
import { repoRoot } from '../../tools/sandbox.ts';

/** git's empty tree: the base of a repository without commits. */
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
/** Changed files whose content the diff shows at most; the rest are named. */
const MAX_FILES_SHOWN = 100;
/** A working-tree file larger than this is named, not diffed. */
const MAX_FILE_BYTES = 2 * 1024 * 1024;

export interface WorkingDiffOptions {
  repoDir: string;
  /** State folder relative to the repository (e.g. `.mr-agent`), never part of the change. */
  stateDir: string;
  hostEnv: Readonly<Record<string, string | undefined>>;
  /** The shell git runs through (the run's). */
  shell: Shell;
  /** Git and the reader of the checkout's files. */
  checkout: CheckoutPort;
  redactor: Redactor;
  logger: Logger;
  /** Longest diff kept (its head); the rest is cut with a note. */
  maxChars: number;
  /** Files the agent's tools changed: shown whole when the folder is not a git work tree. */
  changedFiles: readonly string[];
}

export interface WorkingDiff {
  /** Unified diff, redacted and capped. */
  text: string;
  /** Changed paths (tracked and new). */
  files: string[];
  /** Characters cut from the end (0 when the diff is whole). */
  cut: number;
  /** False when the folder is not a git work tree (`text` then holds the changed files' contents). */
  git: boolean;
}

function capped(text: string, max: number): { text: string; cut: number } {
  if (text.length <= max) return { text, cut: 0 };
  const cut = text.length - max;
  return { text: `${text.slice(0, max)}\n… (${cut} more characters of the diff cut)`, cut };
}

/** Outside git: the current contents of the files the tools changed. */
async function changedContents(options: WorkingDiffOptions): Promise<WorkingDiff> {
  const parts: string[] = [];
  const root = await repoRoot(options.repoDir);
  for (const file of options.changedFiles) {
    // through the path sandbox: a link out of the checkout is not followed
    const read = await readInRepo(root, file, options.maxChars + 1);
    const text = read ? read.text : '(deleted, unreadable, or a link out of the repository)';
    parts.push(`=== ${file} (current content)\n${text}`);
  }
  const whole = options.redactor.redact(parts.join('\n'));
  const { text, cut } = capped(whole, options.maxChars);
  return { text, files: [...options.changedFiles], cut, git: false };
}

/** A changed path as `git diff --raw` lists it against the base (a new file: mode 000000). */
interface Change {
  rel: string;
  oldMode: string;
  oldBlob: string;
  /** Gone from the working tree. */
  deleted: boolean;
}

/** `git diff --raw -z` lines: `:<old mode> <new mode> <old id> <new id> <status>\0<path>\0`. */
function parseRaw(raw: string): Change[] {
  const parts = raw.split('\0');
  const changes: Change[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const fields = parts[i]!.replace(/^\n/, '').split(' ');
    if (fields.length < 5) continue;
    const status = fields[4]!;
    changes.push({
      rel: parts[i + 1]!,
      oldMode: fields[0]!.slice(1),
      oldBlob: fields[2]!,
      deleted: status.startsWith('D'),
    });
  }
  return changes;
}

/**
 * A blob of the agent's object store as text. `--batch` ends the object
 * with a line feed of its own, which is the one the shell port strips, so
 * the content keeps its last line end (or its lack of one).
 */
async function baseSide(git: GitRunner, blob: string): Promise<string> {
  const out = await git.must(['cat-file', '--batch'], `${blob}\n`);
  const header = out.indexOf('\n');
  if (header < 0 || !/^[0-9a-f]+ blob \d+$/.test(out.slice(0, header)))
    throw new Error(`git cat-file gave no blob for ${blob}: ${out.slice(0, 100)}`);
  return out.slice(header + 1);
}

/** Git's test for binary content: a NUL in the first 8,000 bytes. */
const binary = (text: string) => text.slice(0, 8000).includes('\0');

const NONE = '000000';

/** One file's part of the diff, in git's unified format. */
function filePatch(
  rel: string,
  oldMode: string,
  newMode: string,
  before: string,
  after: string,
): string {
  const head = [`diff --git a/${rel} b/${rel}`];
  if (oldMode === NONE) head.push(`new file mode ${newMode}`);
  else if (newMode === NONE) head.push(`deleted file mode ${oldMode}`);
  else if (oldMode !== newMode) head.push(`old mode ${oldMode}`, `new mode ${newMode}`);
  const from = oldMode === NONE ? '/dev/null' : `a/${rel}`;
  const to = newMode === NONE ? '/dev/null' : `b/${rel}`;
  if (binary(before) || binary(after))
    return [...head, `Binary files ${from} and ${to} differ`, ''].join('\n');
  const patch = structuredPatch(from, to, before, after, undefined, undefined, { context: 3 });
  if (patch.hunks.length === 0) return [...head, ''].join('\n');
  const lines = [...head, `--- ${from}`, `+++ ${to}`];
  for (const hunk of patch.hunks) {
    const oldStart = hunk.oldLines === 0 ? hunk.oldStart - 1 : hunk.oldStart;
    const newStart = hunk.newLines === 0 ? hunk.newStart - 1 : hunk.newStart;
    lines.push(`@@ -${oldStart},${hunk.oldLines} +${newStart},${hunk.newLines} @@`, ...hunk.lines);
  }
  return `${lines.join('\n')}\n`;
}

/** The working tree's side of a path: its mode and text, from what was read (as the command user). */
function newSide(read: CheckoutEntry, cap: number): { mode: string; text: string } {
  switch (read.kind) {
    case 'missing':
    case 'folder':
      return { mode: NONE, text: '' };
    case 'link':
      return { mode: '120000', text: read.target.toString('utf8') };
    case 'file':
      return {
        mode: read.executable ? '100755' : '100644',
        text:
          read.size > cap
            ? `(${read.size} bytes: too large to show)\n`
            : read.content.toString('utf8'),
      };
    case 'skip':
      return { mode: '100644', text: `(not shown: ${read.why})\n` };
  }
}

/**
 * The diff of the working tree against the base. Git lists what changed
 * and gives the base side from the agent's object store; the working-tree
 * side is read by checkout-reader.ts, as the command user once the checkout
 * is theirs. Git itself never prints a file of the working tree: a folder
 * swapped for a link between the listing and the read reaches nothing the
 * command user could not read anyway.
 */
export async function workingDiff(options: WorkingDiffOptions): Promise<WorkingDiff> {
  const git = options.checkout.git({
    shell: options.shell,
    cwd: options.repoDir,
    hostEnv: options.hostEnv,
    redactor: options.redactor,
    logger: options.logger,
    identity: { name: 'mr-agent', email: 'mr-agent@localhost' },
    ...(options.shell ? { shell: options.shell } : {}),
  });
  const inside = await git.run(['rev-parse', '--is-inside-work-tree']);
  if (inside.exitCode !== 0 || inside.stdout.trim() !== 'true') return changedContents(options);
  const scope = ['--', '.', `:(exclude)${options.stateDir}`];
  const head = await git.run(['rev-parse', '--verify', '--quiet', 'HEAD']);
  const base = head.exitCode === 0 ? 'HEAD' : EMPTY_TREE;
  const raw = await git.must([
    'diff',
    '--raw',
    '-z',
    '--no-renames',
    '--no-abbrev',
    base,
    ...scope,
  ]);
  // git's paths are relative to the top of the work tree
  const top = await realpath((await git.must(['rev-parse', '--show-toplevel'])).trim());
  const tracked = parseRaw(raw).filter((c) => c.oldMode !== '160000');
  const others = await git.must(['ls-files', '--others', '--exclude-standard', '-z', ...scope]);
  const prefix = path.relative(top, await realpath(options.repoDir));
  const newFiles = others
    .split('\0')
    .filter(Boolean)
    .map((rel) => (prefix ? path.posix.join(prefix, rel) : rel));
  const all: Change[] = [
    ...tracked,
    ...newFiles.map((rel) => ({ rel, oldMode: NONE, oldBlob: '', deleted: false })),
  ];
  const shown = all.slice(0, MAX_FILES_SHOWN);
  const cap = MAX_FILE_BYTES;
  const present = shown.filter((c) => !c.deleted);
  const read = await options.checkout.read(
    top,
    present.map((c) => c.rel),
    { cap },
  );
  const afterOf = new Map(present.map((c, i) => [c, newSide(read[i]!, cap)]));
  const parts: string[] = [];
  let length = 0;
  for (const change of shown) {
    // past the cap the rest is cut anyway: its base side is not fetched
    if (length > options.maxChars) break;
    const after = afterOf.get(change) ?? { mode: NONE, text: '' };
    const before = change.oldMode === NONE ? '' : await baseSide(git, change.oldBlob);
    const part = filePatch(change.rel, change.oldMode, after.mode, before, after.text);
    parts.push(part);
    length += part.length;
  }
  if (all.length > MAX_FILES_SHOWN)
    parts.push(`… and ${all.length - MAX_FILES_SHOWN} more changed files not shown`);
  const whole = options.redactor.redact(parts.join(''));
  const { text, cut } = capped(whole, options.maxChars);
  const names = [...tracked.map((c) => c.rel), ...newFiles];
  return { text, files: names, cut, git: true };
}
