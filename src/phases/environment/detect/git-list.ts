import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * The files git tracks in `root`, read from the index (`git ls-files`), or
 * undefined when `root` is not the top of a git work tree or git cannot be
 * run (not installed, "dubious ownership", a broken index). Reading the index
 * costs no folder walk, which makes detection on a checkout about as fast as
 * `git ls-files` itself. One NUL-separated text: on a large checkout,
 * scanning it in place (list.ts) spares building tens of thousands of strings.
 *
 * git writes straight into a private temporary file and the file is read
 * once: through a pipe, every 64 KiB chunk would wake the event loop, which
 * on a busy machine costs more than git itself.
 */
export async function gitTrackedText(root: string): Promise<string | undefined> {
  if (!existsSync(path.join(root, '.git'))) return undefined;
  const file = path.join(tmpdir(), `mr-agent-ls-files-${process.pid}-${randomUUID()}`);
  let fd: number;
  try {
    fd = openSync(file, 'wx', 0o600);
  } catch {
    return undefined;
  }
  try {
    const code = await new Promise<number | null>((resolve) => {
      const child = spawn('git', ['-c', 'core.quotepath=off', 'ls-files', '-z', '--cached'], {
        cwd: root,
        stdio: ['ignore', fd, 'ignore'],
        windowsHide: true,
      });
      child.on('error', () => resolve(null));
      child.on('close', resolve);
    });
    return code === 0 ? readFileSync(file, 'utf8') : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
    rmSync(file, { force: true });
  }
}
