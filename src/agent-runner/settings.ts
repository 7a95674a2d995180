import type { Config } from '../config/options.ts';
import { defaultConfig } from '../config/resolve.ts';

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

/** How the AgentRunner stops and caps its processes (not options). */
const PROCESS_SETTINGS = { killAfterMs: 5000, maxRawOutputChars: 64_000 };

/** The settings of a configuration with every option at its default (config/options.ts). */
export function defaultSettings(): AgentRunnerSettings {
  return { ...PROCESS_SETTINGS, ...settingsFromConfig(defaultConfig()) };
}

/** The option-backed settings of a resolved configuration. */
export function settingsFromConfig(
  config: Config,
): Omit<AgentRunnerSettings, keyof typeof PROCESS_SETTINGS> {
  return {
    stateDir: config.state.directory,
    sandbox: config.runner.worker.sandbox,
    promptsDir: config.prompts.directory,
    testTimeoutSec: config.execution.command_timeout_sec,
  };
}
