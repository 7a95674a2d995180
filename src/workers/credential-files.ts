import { chown, copyFile, mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { CommandUser } from '../core/isolation.ts';

/**
 * A worker CLI that runs as the command user (docs/security.md) gets that user's
 * private home, not the agent's: its login files (`~/.codex/auth.json`,
 * `~/.claude/.credentials.json` …) under the agent's home are copied to the
 * same place in the user's home, readable by the user only. Files outside
 * the agent's home are left where they are.
 */
export async function giveCredentialFiles(
  files: readonly string[],
  home: string | undefined,
  user: CommandUser,
): Promise<void> {
  if (!home) return;
  for (const file of files) {
    const relative = path.relative(home, file);
    if (relative.startsWith('..') || path.isAbsolute(relative)) continue;
    if (
      !(await stat(file).then(
        (s) => s.isFile(),
        () => false,
      ))
    )
      continue;
    const target = path.join(user.home, relative);
    let dir = path.dirname(target);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    for (; dir.startsWith(`${user.home}/`); dir = path.dirname(dir))
      await chown(dir, user.uid, user.gid);
    await copyFile(file, target);
    await chown(target, user.uid, user.gid);
  }
}
