import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * The files git tracks in `root`, read from the index (`git ls-files`), or
 * undefined when `root` is not the top of a git work tree or git cannot be
 * run (not installed, "dubious ownership", a broken index). Reading the index
 * costs no folder walk, which makes detection on a checkout about as fast as
 * `git ls-files` itself.
 */
export async function gitTrackedFiles(root: string): Promise<string[] | undefined> {
  if (!existsSync(path.join(root, '.git'))) return undefined;
  return new Promise((resolve) => {
    execFile(
      'git',
      ['-c', 'core.quotepath=off', 'ls-files', '-z', '--cached'],
      { cwd: root, maxBuffer: 512 * 1024 * 1024, encoding: 'utf8', windowsHide: true },
      (error, stdout) => {
        if (error) return resolve(undefined);
        resolve(stdout.split('\0').filter(Boolean));
      },
    );
  });
}
