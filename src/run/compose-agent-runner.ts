import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '../errors/errors.ts';
import type { TaskSpec } from '../task/task-yaml.ts';
import { checkedCliWorker } from '../workers/action-worker.ts';
import { workerEnv } from '../workers/env.ts';
import type { Worker } from '../workers/port.ts';
import { isExternalWorkerKind } from '../workers/registry.ts';
import type { TaskContext } from '../agent-runner/context.ts';
import { MetaClient } from '../agent-runner/meta-client.ts';
import { loadMetaPrompts } from '../agent-runner/prompts.ts';
import { settingsFromConfig, type AgentRunnerSettings } from '../agent-runner/settings.ts';
import type { PortDeps } from '../core/run-context.ts';
import type { ComposeInput } from './compose.ts';

/** What AgentRunner mode needs from outside, injected. */
export interface AgentRunnerDeps extends PortDeps {
  /** The folder `task.repo` is resolved against. */
  cwd: string;
  settings?: Partial<AgentRunnerSettings>;
  signal?: AbortSignal;
  /** Replaces the CLI worker chosen by `runner.worker.kind` (tests, other worker kinds). */
  worker?: Worker;
}

/**
 * AgentRunner mode composed from the same input as `composeRun`: the same
 * services of the process (model, shell, clock, logging, redaction), the
 * settings its options give, and the run's signal. What the mode builds
 * beyond them (the checked coding CLI, the meta prompts, the meta-agent)
 * comes in PLANNING (`prepareSession`), so a missing CLI or PRD fails the
 * task with its Task Note.
 */
export function composeAgentRunner(
  input: Pick<
    ComposeInput,
    'config' | 'llm' | 'shell' | 'clock' | 'logger' | 'redactor' | 'hostEnv' | 'signal'
  > & { cwd: string },
): AgentRunnerDeps {
  return {
    llm: input.llm,
    shell: input.shell,
    clock: input.clock,
    logger: input.logger,
    redactor: input.redactor,
    hostEnv: input.hostEnv,
    cwd: input.cwd,
    settings: settingsFromConfig(input.config),
    signal: input.signal,
  };
}

/** What a task needs once it is prepared: the meta-agent, the worker and its environment. */
export interface Session {
  meta: MetaClient;
  worker: Worker;
  env: Record<string, string>;
  settings: AgentRunnerSettings;
}

export async function isDirectory(dir: string): Promise<boolean> {
  try {
    return (await stat(dir)).isDirectory();
  } catch {
    return false;
  }
}

/** The PRD text: inline, or a file relative to the repository. */
async function readPrd(task: TaskSpec, repoDir: string): Promise<string> {
  if (task.prd.text !== undefined) return task.prd.text;
  const file = path.resolve(repoDir, task.prd.path ?? '');
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read the PRD file: ${(error as Error).message}`, {
      where: 'task.prd.path',
      hint: 'task.prd.path is resolved against the repository (task.repo).',
    });
  }
}

/** The coding CLI the Task YAML names, checked like the run pipeline's worker. */
async function cliWorker(
  task: TaskSpec,
  env: Record<string, string>,
  deps: AgentRunnerDeps,
  settings: AgentRunnerSettings,
): Promise<Worker> {
  const kind = task.worker.kind;
  if (!isExternalWorkerKind(kind)) {
    throw new ConfigError(`runner.worker.kind "${kind}" is not an external coding CLI`, {
      where: 'runner.worker.kind',
      hint: 'the AgentRunner drives codex-cli, claude-code or gemini-cli; builtin tasks run through the builtin tool loop.',
    });
  }
  return checkedCliWorker({
    kind,
    env,
    hostEnv: deps.hostEnv,
    sandbox: settings.sandbox,
    shell: deps.shell,
    clock: deps.clock,
    logger: deps.logger.child({ component: 'agent-runner' }),
    killAfterMs: settings.killAfterMs,
    maxRawOutputChars: settings.maxRawOutputChars,
  });
}

/**
 * Everything checked before the first LLM call (PLANNING): the repository
 * exists, the PRD is readable, the worker CLI and its credential are
 * available, the prompts load. Each problem is a ConfigError.
 */
export async function prepareSession(
  context: TaskContext,
  deps: AgentRunnerDeps,
  settings: AgentRunnerSettings,
): Promise<Session> {
  const { task, repoDir } = context;
  if (!(await isDirectory(repoDir))) {
    throw new ConfigError(`the task repository ${repoDir} is not a directory`, {
      where: 'task.repo',
    });
  }
  context.prdText = await readPrd(task, repoDir);
  const env = workerEnv(deps.hostEnv, task.worker.env);
  const worker = deps.worker ?? (await cliWorker(task, env, deps, settings));
  const prompts = await loadMetaPrompts({
    ...(settings.promptsDir ? { overrideDir: path.resolve(deps.cwd, settings.promptsDir) } : {}),
    ...(task.meta.systemPrompt ? { systemPrompt: task.meta.systemPrompt } : {}),
  });
  const meta = new MetaClient({
    llm: deps.llm,
    clock: deps.clock,
    logger: deps.logger,
    redactor: deps.redactor,
    prompts,
    ...(deps.signal ? { signal: deps.signal } : {}),
  });
  return { meta, worker, env, settings };
}
