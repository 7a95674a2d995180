import type { Config } from '../config/options.ts';

/** What the AgentRunner takes from the configuration (all have defaults). */
export interface AgentRunnerSettings {
  /** Folder under the repository for the Task Note (option `state.directory`). */
  stateDir: string;
  /** Who sandboxes the worker CLI (option `runner.worker.sandbox`). */
  sandbox: 'auto' | 'outer' | 'cli';
  /** Folder whose `meta/*.md` override the bundled prompts (option `prompts.directory`). */
  promptsDir: string;
  /** Time limit of the Task YAML test command (option `execution.command_timeout_sec`). */
  testTimeoutSec: number;
  /** SIGTERM → SIGKILL delay for worker and test processes. */
  killAfterMs: number;
  /** Characters of worker output kept per run. */
  maxRawOutputChars: number;
}

export const DEFAULT_SETTINGS: AgentRunnerSettings = {
  stateDir: '.mr-agent',
  sandbox: 'auto',
  promptsDir: '',
  testTimeoutSec: 600,
  killAfterMs: 5000,
  maxRawOutputChars: 64_000,
};

/** The settings for a resolved configuration. */
export function settingsFromConfig(config: Config): Partial<AgentRunnerSettings> {
  return {
    stateDir: config.state.directory,
    sandbox: config.runner.worker.sandbox,
    promptsDir: config.prompts.directory,
    testTimeoutSec: config.execution.command_timeout_sec,
  };
}
