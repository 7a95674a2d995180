import type { Clock } from '../core/clock.ts';
import type { LlmPort } from '../core/llm-port.ts';
import type { Shell } from '../core/shell-port.ts';
import type { Logger } from '../log/logger.ts';
import type { Redactor } from '../log/redact.ts';
import type { Worker } from '../workers/port.ts';
import type { AgentRunnerSettings } from './settings.ts';

/** What AgentRunner mode needs from outside, injected. */
export interface AgentRunnerDeps {
  llm: LlmPort;
  shell: Shell;
  clock: Clock;
  logger: Logger;
  redactor: Redactor;
  /** The host environment; the worker sees only an allow-list of it plus `runner.worker.env`. */
  hostEnv: Readonly<Record<string, string | undefined>>;
  /** The folder `task.repo` is resolved against. */
  cwd: string;
  settings?: Partial<AgentRunnerSettings>;
  signal?: AbortSignal;
  /** Replaces the CLI worker chosen by `runner.worker.kind` (tests, other worker kinds). */
  worker?: Worker;
}
