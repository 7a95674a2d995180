import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { EnvironmentRunner } from '../../../../core/environment.ts';
import { repoRoot, resolveInRepo } from '../../../../tools/sandbox.ts';
import { folderOf } from '../build-files.ts';
import type { RunnerInput } from '../kind.ts';

const CONDA = String.raw`\b(?:conda|mamba|micromamba)\s+`;
const CREATE = new RegExp(`${CONDA}(?:env\\s+)?create\\b([^;&|]*)`);
const RUN = new RegExp(`${CONDA}run\\b([^;&|]*)`);
const ENV_NAME = /^[\w.-]+$/;

function option(words: string, ...flags: string[]): string | undefined {
  for (const flag of flags) {
    const match = new RegExp(`(?:^|\\s)${flag}(?:=|\\s+)(['"]?)([^\\s'"]+)\\1`).exec(words);
    if (match) return match[2];
  }
  return undefined;
}

/** The `name:` of a conda environment file, if it is a plain name. */
async function nameInFile(repoDir: string, file: string): Promise<string | undefined> {
  try {
    const real = await resolveInRepo(await repoRoot(repoDir), file);
    const doc = parseYaml(await readFile(real, 'utf8')) as { name?: unknown } | null;
    return typeof doc?.name === 'string' && ENV_NAME.test(doc.name) ? doc.name : undefined;
  } catch {
    return undefined;
  }
}

/** `-n X` or `-p /prefix` of the conda environment the setup created (or ran in). */
async function condaTarget(input: RunnerInput): Promise<string[] | undefined> {
  for (const command of input.setupCommands) {
    const create = CREATE.exec(command);
    if (!create) continue;
    const words = create[1]!;
    const name = option(words, '--name', '-n');
    if (name && ENV_NAME.test(name)) return ['-n', name];
    const prefix = option(words, '--prefix', '-p');
    if (prefix) return ['-p', path.resolve(input.repoDir, folderOf(command), prefix)];
    const file = option(words, '--file', '-f') ?? 'environment.yml';
    const fromFile = await nameInFile(input.repoDir, path.join(folderOf(command), file));
    if (fromFile) return ['-n', fromFile];
  }
  for (const command of [...input.setupCommands, ...input.checkCommands]) {
    const words = RUN.exec(command)?.[1];
    const name = words && option(words, '--name', '-n');
    if (name && ENV_NAME.test(name)) return ['-n', name];
  }
  return undefined;
}

function condaRunner(target: string[]): EnvironmentRunner {
  const wrap = ['conda', 'run', ...target, '--no-capture-output'];
  const label =
    target[0] === '-n' ? `the conda environment \`${target[1]}\`` : 'the conda environment';
  return {
    wrap,
    path: [],
    env: {},
    description: `every command (run_command and the tests) runs inside ${label} through \`${wrap.join(' ')} sh -c '…'\`; do not activate it yourself.`,
  };
}

/**
 * `conda run` in the environment the setup created, only when the setup
 * succeeded: a missing environment would fail every command.
 */
export async function condaEnvironmentRunner(
  input: RunnerInput,
): Promise<EnvironmentRunner | undefined> {
  if (input.setupStatus !== 'success') return undefined;
  const target = await condaTarget(input);
  return target ? condaRunner(target) : undefined;
}
