import type { RunOutcome } from '../core/outcome.ts';
import type { Logger } from '../log/logger.ts';
import type { Redactor } from '../log/redact.ts';
import type { CiSession, SessionServices } from './session.ts';

/** What a CI job's carry-out needs and returns (shared by carry-out, hand-over and job-end). */
export interface CarryOutDeps {
  services: SessionServices;
  logger: Logger;
  redactor: Redactor;
  stdout: { write(text: string): unknown };
  /** Registers a SIGTERM/SIGINT handler; returns a function that removes it. */
  onSignal?(handler: (signal: string) => void): () => void;
  /** After a termination signal, the longest wait for the run's final state (default 8 s). */
  graceMs?: number;
}

/** What a job carried out: its exit code and, when it ran (part of) the run, the run. */
export interface CarriedOut {
  exitCode: number;
  run?: { outcome: RunOutcome; session: CiSession };
}
