import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { EnvironmentName, EnvironmentRunner } from '../../core/environment.ts';
import { repoRoot, resolveInRepo } from '../../tools/sandbox.ts';

/** What the setup did, as the runner is derived from it. */
export interface RunnerInput {
  name: EnvironmentName;
  setupStatus: 'success' | 'failed' | 'skipped';
  /** The setup commands of the last round (after regenerations). */
  setupCommands: readonly string[];
  /** The verification commands of the last round. */
  checkCommands: readonly string[];
  repoDir: string;
  /** Repository-relative folders of the environment's projects. */
  projectDirs: readonly string[];
}

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

/** The folder a command runs in: `cd <dir> && …` of the generated commands. */
function folderOf(command: string): string {
  const match = /^\s*cd\s+(['"]?)([^'"\s]+)\1\s*&&/.exec(command);
  return match ? match[2]! : '.';
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

async function venvRunner(input: RunnerInput): Promise<EnvironmentRunner | undefined> {
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

/**
 * How later commands run inside the selected environment (issue 17 item 4):
 * for miniforge, `conda run` in the environment the setup created (only
 * when the setup succeeded: a missing environment would fail every command);
 * for Python, the virtualenv the setup left in the checkout. Node, Java and Go
 * need no wrapper: their package manager and test command are in the hand-off.
 */
export async function environmentRunner(
  input: RunnerInput,
): Promise<EnvironmentRunner | undefined> {
  if (input.name === 'miniforge') {
    if (input.setupStatus !== 'success') return undefined;
    const target = await condaTarget(input);
    return target ? condaRunner(target) : undefined;
  }
  if (input.name === 'python') return venvRunner(input);
  return undefined;
}
