import type { PortDeps } from '../core/run-context.ts';
import type { Worker } from '../workers/port.ts';
import type { AgentRunnerSettings } from './settings.ts';

/** What AgentRunner mode needs from outside, injected. */
export interface AgentRunnerDeps extends PortDeps {
  /** The folder `task.repo` is resolved against. */
  cwd: string;
  settings?: Partial<AgentRunnerSettings>;
  signal?: AbortSignal;
  /** Replaces the CLI worker chosen by `runner.worker.kind` (tests, other worker kinds). */
  worker?: Worker;
}
