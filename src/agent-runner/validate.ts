import path from 'node:path';
import type { Logger } from '../log/logger.ts';
import type { Shell } from '../core/shell-port.ts';
import { sandboxEnv } from '../shell/sandbox-env.ts';
import type { TaskSpec } from '../task/task-yaml.ts';
import { capOutput } from '../workers/output.ts';
import type { TestResult } from './context.ts';

export interface TestRunDeps {
  shell: Shell;
  logger: Logger;
  hostEnv: Readonly<Record<string, string | undefined>>;
  timeoutSec: number;
  killAfterMs: number;
  maxOutputChars: number;
  signal?: AbortSignal;
}

/** Runs the Task YAML `task.test.command` in the repository. */
export async function runTaskTest(
  test: NonNullable<TaskSpec['test']>,
  repoDir: string,
  deps: TestRunDeps,
): Promise<TestResult> {
  const result = await deps.shell.run({
    command: test.command,
    cwd: path.resolve(repoDir, test.cwd),
    env: sandboxEnv(deps.hostEnv),
    timeoutMs: deps.timeoutSec * 1000,
    killAfterMs: deps.killAfterMs,
    ...(deps.signal ? { signal: deps.signal } : {}),
  });
  const summary = result.spawnError
    ? `could not run: ${result.spawnError}`
    : result.timedOut
      ? `timed out after ${deps.timeoutSec} s`
      : result.exitCode === 0
        ? 'passed'
        : `failed (exit code ${result.exitCode ?? result.signal ?? 'unknown'})`;
  deps.logger.info('test command finished', {
    component: 'agent-runner',
    command: test.command,
    exitCode: result.exitCode,
    outputLength: result.output.length,
    durationMs: result.durationMs,
  });
  return {
    command: test.command,
    exitCode: result.exitCode,
    summary,
    rawOutput: capOutput(result.output, deps.maxOutputChars),
    durationMs: result.durationMs,
  };
}
