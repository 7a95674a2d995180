import type { Config } from '../../config/options.ts';
import type { TaskSpec } from '../../task/task-yaml.ts';
import type { EnvironmentHandoff } from '../../core/environment.ts';
import { detectTestCommand } from '../environment/test-command.ts';

export interface TestCommand {
  command: string;
  /** Repository-relative working folder. */
  cwd: string;
  /** `detected`: the project's own CI test command (environment detection), else a guess from build files. */
  source: 'task' | 'config' | 'detected';
}

/**
 * Task YAML `task.test`, then `execution.test_command`, then the environment
 * hand-off's test command; detection for any environment only when there is
 * no hand-off (no environment phase).
 */
export async function resolveTestCommand(
  task: TaskSpec,
  config: Config,
  repoDir: string,
  environment?: EnvironmentHandoff,
): Promise<TestCommand | undefined> {
  if (task.test) return { command: task.test.command, cwd: task.test.cwd, source: 'task' };
  if (config.execution.test_command)
    return { command: config.execution.test_command, cwd: '.', source: 'config' };
  if (environment)
    return environment.test_command
      ? { ...environment.test_command, source: 'detected' }
      : undefined;
  const detected = await detectTestCommand(repoDir);
  return detected ? { command: detected, cwd: '.', source: 'detected' } : undefined;
}
