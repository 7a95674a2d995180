import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import path from 'node:path';
import { loadConfig } from '../../config/load.ts';
import type { Config } from '../../config/options.ts';
import type { ResolvedConfig } from '../../config/resolve.ts';
import { ConfigError, UsageError } from '../../errors/errors.ts';
import { Redactor } from '../../log/redact.ts';
import type { AgentRunnerResult } from '../../run/agent-runner.ts';
import { describeError } from '../../errors/catalog.ts';
import { shownPath } from '../../report/local-note-target.ts';
import type { RunOutcome } from '../../core/outcome.ts';
import type { TaskSpec } from '../../task/task-yaml.ts';
import type { CliIo } from '../io.ts';
import type { RunOptions } from './run.ts';

/** Helpers of `mr-agent run`: repository, configuration, logging stream, output. */

export async function resolveRepo(io: CliIo, options: RunOptions, task: TaskSpec): Promise<string> {
  const given = options.repo ?? task.repo;
  const dir = path.resolve(io.cwd, given);
  const kind = await stat(dir).then(
    (s) => (s.isDirectory() ? 'folder' : 'other'),
    () => 'missing',
  );
  if (kind === 'folder') return dir;
  const where = options.repo !== undefined ? `--repo ${options.repo}` : `task.repo (${task.repo})`;
  const relative = path.isAbsolute(given) ? '' : ` (a relative path is resolved from ${io.cwd})`;
  throw new UsageError(
    kind === 'missing' ? 'the repository folder does not exist' : 'the repository is not a folder',
    { where, hint: `give the folder of a checkout${relative}.` },
  );
}

/**
 * The folders the run writes to and reads from, checked before anything
 * starts: a state folder that is a file or cannot be created, or a prompts
 * folder that does not exist, is a configuration error, not a crash mid-run.
 */
export async function checkFolders(io: CliIo, config: Config, repoDir: string): Promise<void> {
  const stateDir = path.resolve(repoDir, config.state.directory);
  const problem = await stateFolderProblem(stateDir);
  if (problem) {
    throw new ConfigError(`cannot use ${stateDir} as the state folder`, {
      where: 'state.directory',
      problems: [problem],
      hint: 'name a folder the run may create and write (relative paths are inside the repository).',
    });
  }
  const prompts = config.prompts.directory;
  if (prompts === '') return;
  const isFolder = await stat(path.resolve(io.cwd, prompts)).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (!isFolder) {
    throw new ConfigError(`the prompts folder ${prompts} does not exist`, {
      where: 'prompts.directory',
      hint: `name a folder of prompt files that replace the built-in ones (relative paths are resolved from ${io.cwd}), or leave it empty.`,
    });
  }
}

/** Why the state folder cannot be created or written, without creating anything yet. */
async function stateFolderProblem(dir: string): Promise<string | undefined> {
  let current = dir;
  for (;;) {
    const info = await stat(current).catch(() => undefined);
    if (info) {
      if (!info.isDirectory()) return `${current} is not a folder`;
      const writable = await access(current, constants.W_OK).then(
        () => true,
        () => false,
      );
      return writable ? undefined : `${current} is not writable`;
    }
    const parent = path.dirname(current);
    if (parent === current) return `${dir} cannot be created`;
    current = parent;
  }
}

/** Task YAML `runner.meta.model` applies unless a model was configured elsewhere. */
export async function configFor(io: CliIo, options: RunOptions, task: TaskSpec, repoDir: string) {
  const input = { env: io.env, repoDir, sets: options.set ?? [] };
  const first = await loadConfig(input);
  if (!task.meta.model || first.origins['llm.model']?.kind !== 'default') return first;
  return loadConfig({
    ...input,
    flags: { 'llm.model': { value: task.meta.model, from: 'Task YAML runner.meta.model' } },
  });
}

export function maxLoopsFor(resolved: ResolvedConfig, task: TaskSpec): number {
  return resolved.origins['runner.max_loops']?.kind === 'default'
    ? task.maxLoops
    : resolved.config.runner.max_loops;
}

export function redactorFor(io: CliIo, config: Config): Redactor {
  const redactor = new Redactor();
  redactor.addFromEnv(io.env, [...config.secrets.variables, config.llm.api_key_variable]);
  redactor.add(config.gitlab.token);
  return redactor;
}

export function printOutcome(
  io: CliIo,
  outcome: RunOutcome,
  json: boolean,
  files: { taskNote: string; result: string },
) {
  if (json) {
    io.stdout.write(
      `${JSON.stringify({ ok: outcome.state === 'COMPLETE', state: outcome.state, reason: outcome.reason, summary: outcome.summary, ...(outcome.error?.hint ? { hint: outcome.error.hint } : {}), exit_code: outcome.exitCode, task_note: files.taskNote, result: files.result })}\n`,
    );
    return;
  }
  const hint =
    outcome.state === 'FAILED' && outcome.error?.hint ? `hint: ${outcome.error.hint}\n` : '';
  io.stdout.write(
    `\nmr-agent: ${outcome.state} (${outcome.reason}) — ${outcome.summary}\n${hint}Task Note: ${files.taskNote}\n`,
  );
}

/** The last lines of an AgentRunner task: its state, what failed with the hint, the Task Note. */
export function printWorkerOutcome(
  io: CliIo,
  redactor: Redactor,
  result: AgentRunnerResult,
  json: boolean,
) {
  const described = result.error === undefined ? undefined : describeError(result.error);
  const error = described ? redactor.redact(described.message) : undefined;
  const hint = described?.details.find((d) => d.startsWith('hint: '))?.slice('hint: '.length);
  const taskNote = shownPath(io.cwd, result.taskNotePath);
  if (json) {
    io.stdout.write(
      `${JSON.stringify({ ok: result.state === 'COMPLETE', state: result.state, ...(error ? { error } : {}), ...(hint ? { hint } : {}), exit_code: result.exitCode, task_note: taskNote })}\n`,
    );
    return;
  }
  const lines = [`mr-agent: ${result.state}${error ? ` — ${error}` : ''}`];
  if (hint) lines.push(`hint: ${hint}`);
  io.stdout.write(`\n${[...lines, `Task Note: ${taskNote}`].join('\n')}\n`);
}
