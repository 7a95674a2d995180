import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '../errors/errors.ts';
import type { TaskSpec } from '../task/task-yaml.ts';
import { checkWorkerAvailable } from '../workers/availability.ts';
import { createCliWorker } from '../workers/cli-worker.ts';
import { workerEnv } from '../workers/env.ts';
import type { Worker } from '../workers/port.ts';
import { CLI_WORKERS, isExternalWorkerKind, resolveSandbox } from '../workers/registry.ts';
import type { TaskContext } from '../agent-runner/context.ts';
import { MetaClient } from '../agent-runner/meta-client.ts';
import { loadMetaPrompts } from '../agent-runner/prompts.ts';
import type { AgentRunnerDeps } from '../agent-runner/deps.ts';
import type { AgentRunnerSettings } from '../agent-runner/settings.ts';

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
  const spec = CLI_WORKERS[kind];
  const found = await checkWorkerAvailable(spec, env);
  const sandbox = resolveSandbox(settings.sandbox, deps.hostEnv);
  deps.logger.info('worker available', {
    component: 'agent-runner',
    worker: kind,
    executable: found.executable,
    credential: found.credential,
    sandbox,
  });
  return createCliWorker(spec, {
    shell: deps.shell,
    clock: deps.clock,
    logger: deps.logger,
    sandbox,
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
