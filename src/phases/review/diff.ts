/**
 * The change under review: the working tree against `HEAD` (the agent
 * commits only at delivery), new untracked files included, the state folder
 * left out. Read-only: the index is never touched.
 */
import type { Logger } from '../../log/logger.ts';
import type { Redactor } from '../../log/redact.ts';
import type { Shell } from '../../core/shell-port.ts';
import { Git } from '../../shell/git.ts';
import { readInRepo } from '../../tools/repo-read.ts';
import { repoRoot } from '../../tools/sandbox.ts';

/** git's empty tree: the base of a repository without commits. */
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
const MAX_NEW_FILES = 100;

export interface WorkingDiffOptions {
  repoDir: string;
  /** State folder relative to the repository (e.g. `.mr-agent`), never part of the change. */
  stateDir: string;
  hostEnv: Readonly<Record<string, string | undefined>>;
  /** The shell git runs through (the run's). */
  shell: Shell;
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
    // through the path sandbox: a link out of the folder is not followed (issue 19 §5)
    const read = await readInRepo(root, file, options.maxChars + 1);
    const text = read ? read.text : '(deleted, unreadable, or a link out of the repository)';
    parts.push(`=== ${file} (current content)\n${text}`);
  }
  const whole = options.redactor.redact(parts.join('\n'));
  const { text, cut } = capped(whole, options.maxChars);
  return { text, files: [...options.changedFiles], cut, git: false };
}

export async function workingDiff(options: WorkingDiffOptions): Promise<WorkingDiff> {
  const git = new Git({
    shell: options.shell,
    cwd: options.repoDir,
    hostEnv: options.hostEnv,
    redactor: options.redactor,
    logger: options.logger,
    identity: { name: 'mr-agent', email: 'mr-agent@localhost' },
  });
  const inside = await git.run(['rev-parse', '--is-inside-work-tree']);
  if (inside.exitCode !== 0 || inside.stdout.trim() !== 'true') return changedContents(options);
  const scope = ['--', '.', `:(exclude)${options.stateDir}`];
  const head = await git.run(['rev-parse', '--verify', '--quiet', 'HEAD']);
  const base = head.exitCode === 0 ? 'HEAD' : EMPTY_TREE;
  const common = ['--no-color', '--no-ext-diff', '--no-textconv', '--no-renames'];
  const tracked = await git.must(['diff', ...common, base, ...scope]);
  const names = await git.must(['diff', '--name-only', '-z', base, ...scope]);
  const others = await git.must(['ls-files', '--others', '--exclude-standard', '-z', ...scope]);
  const newFiles = others.split('\0').filter(Boolean);
  const parts = tracked ? [tracked] : [];
  for (const file of newFiles.slice(0, MAX_NEW_FILES)) {
    // exit code 1 means "there are differences"
    const added = await git.run(['diff', ...common, '--no-index', '--', '/dev/null', file]);
    if (added.stdout) parts.push(added.stdout);
  }
  if (newFiles.length > MAX_NEW_FILES)
    parts.push(`… and ${newFiles.length - MAX_NEW_FILES} more new files not shown`);
  const whole = options.redactor.redact(parts.join('\n'));
  const { text, cut } = capped(whole, options.maxChars);
  return { text, files: [...names.split('\0').filter(Boolean), ...newFiles], cut, git: true };
}
