import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Shell } from '../core/shell-port.ts';
import { Git } from './git.ts';
import { lazyExecaShell } from './lazy-shell.ts';

/**
 * Where git is looked for when the caller passes no host environment: the
 * standard system folders (git is in /usr/bin in every runner image). Where
 * it is not found, detection walks the folder instead.
 */
const SYSTEM_PATH = { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' };

/**
 * The files git tracks in `root`, read from the index (`git ls-files`), or
 * undefined when `root` is not the top of a git work tree or git cannot be
 * run (not installed, "dubious ownership", a broken index). Reading the index
 * costs no folder walk, which makes detection on a checkout about as fast as
 * `git ls-files` itself. Git runs through the job's one git module
 * (git.ts): no ambient configuration, no hooks, no fsmonitor. The list is
 * one NUL-separated text: on a large checkout, scanning it in place
 * (detection's list.ts) spares building tens of thousands of strings.
 * `shell`: the one git runs through; by default the process's execa shell.
 * Detection gets it as its `TrackedFiles` port.
 */
export async function gitTrackedText(
  root: string,
  hostEnv: Readonly<Record<string, string | undefined>> = SYSTEM_PATH,
  shell: Shell = lazyExecaShell(),
): Promise<string | undefined> {
  if (!existsSync(path.join(root, '.git'))) return undefined;
  const git = new Git({ shell, cwd: root, hostEnv, maxOutputBytes: 512 * 1024 * 1024 });
  const result = await git.run(['ls-files', '-z', '--cached']).catch(() => undefined);
  if (!result || result.exitCode !== 0) return undefined;
  return result.stdout;
}

/** The tracked files as a list (see `gitTrackedText`). */
export async function gitTrackedFiles(
  root: string,
  hostEnv: Readonly<Record<string, string | undefined>> = SYSTEM_PATH,
): Promise<string[] | undefined> {
  const text = await gitTrackedText(root, hostEnv);
  return text === undefined ? undefined : text.split('\0').filter(Boolean);
}
