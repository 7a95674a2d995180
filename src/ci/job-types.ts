import type { RunOutcome } from '../core/outcome.ts';
import type { Logger } from '../log/logger.ts';
import type { Redactor } from '../log/redact.ts';
import type { RunLifecycle } from '../run/lifecycle.ts';
import type { CiSession, SessionServices } from './session.ts';

/** What a CI job's carry-out needs and returns (shared by carry-out and hand-over). */
export interface CarryOutDeps {
  services: SessionServices;
  logger: Logger;
  redactor: Redactor;
  stdout: { write(text: string): unknown };
  /** Signals, grace period and the run's end (src/run/lifecycle.ts). */
  lifecycle: RunLifecycle;
  /** Told once the run's progress note is posted (the job's log lines wait for it). */
  notePosted?(): void;
}

/** What a job carried out: its exit code and, when it ran (part of) the run, the run. */
export interface CarriedOut {
  exitCode: number;
  run?: { outcome: RunOutcome; session: CiSession };
}
