import { existsSync } from 'node:fs';
import path from 'node:path';
import type { EnvironmentRunner } from '../../../../core/environment.ts';
import { repoRoot, resolveInRepo } from '../../../../tools/sandbox.ts';
import { folderOf } from '../build-files.ts';
import type { RunnerInput } from '../kind.ts';

/** Virtualenv folders the setup named (`-m venv X`, `virtualenv X`, `uv venv X`), then the usual ones. */
function venvCandidates(input: RunnerInput): string[] {
  const named: string[] = [];
  for (const command of input.setupCommands) {
    const match =
      /-m\s+venv\s+(?:--?[\w-]+\s+)*([^\s;&|]+)/.exec(command) ??
      /\b(?:virtualenv|uv\s+venv)\s+(?:--?[\w-]+\s+)*([^\s;&|-][^\s;&|]*)/.exec(command);
    if (match) named.push(path.join(folderOf(command), match[1]!));
  }
  const dirs = ['.', ...input.projectDirs];
  return [...named, ...dirs.flatMap((d) => [path.join(d, '.venv'), path.join(d, 'venv')])];
}

/** Python runs from the virtualenv the setup left in the checkout: its `bin` first on PATH. */
export async function venvRunner(input: RunnerInput): Promise<EnvironmentRunner | undefined> {
  const root = await repoRoot(input.repoDir);
  for (const candidate of venvCandidates(input)) {
    const dir = await resolveInRepo(root, candidate).catch(() => undefined);
    if (!dir || !existsSync(path.join(dir, 'bin', 'python'))) continue;
    const shown = path.relative(root.real, dir) || '.';
    return {
      wrap: [],
      path: [path.join(dir, 'bin')],
      env: { VIRTUAL_ENV: dir },
      description: `Python runs from the virtualenv \`${shown}\`: its \`bin\` folder is first on PATH for every command (run_command and the tests); do not activate it yourself.`,
    };
  }
  return undefined;
}
