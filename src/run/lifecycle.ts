/**
 * How a run ends, the same for `mr-agent run`, every step of `mr-agent ci`
 * and `mr-agent demo`:
 *
 * - SIGTERM, SIGINT and SIGHUP alike abort the run (job cancelled, timed
 *   out, terminal closed). The run stops at its next check, its commands'
 *   process groups are killed, delivery gives up its GitLab calls, and the
 *   run writes its final state ("cancelled"), naming who or what stopped it:
 *   what the explainer the job gives (`explainWith`) finds out, else the signal.
 * - A run that has not ended within the grace period after the signal is
 *   given up: runs.json and result.json say "cancelled", the note gets what
 *   is left of the grace period, then the process ends — whatever GitLab does.
 * - Whatever fails around the run once its note exists still ends the note.
 * - After a signal the process always ends once the run is over, so no
 *   request or timer left behind can keep it alive (or push anything); a
 *   second signal ends it at once.
 */
import { describeError } from '../errors/catalog.ts';
import { CancelledError } from '../errors/errors.ts';
import { exitCodeFor } from '../errors/exit-code.ts';
import type { Logger } from '../log/logger.ts';
import { exitCodeForSignal, type TerminationSignal } from '../report/termination.ts';
import { systemClock } from '../core/clock.ts';
import type { CancelCause } from '../core/progress/model.ts';
import type { Reporting } from './reporting/index.ts';

/** Registers a handler for termination signals; returns a function that removes it. */
export type SignalSource = (handler: (signal: string) => void) => () => void;

/**
 * Finds out who or what a termination signal stands for (a CI job asks
 * GitLab: `/agent stop`, a cancel, the job's timeout). Called once, when the
 * signal arrives; it must answer within its own short time bound.
 */
export type CancelExplainer = (signal: TerminationSignal) => Promise<CancelCause>;

export const DEFAULT_GRACE_MS = 8000;
/** Part of the grace period kept for the final note when the run does not stop by itself. */
const NOTE_RESERVE_MS = 2000;

const SIGNALS: readonly TerminationSignal[] = ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGPIPE'];

export interface LifecycleOptions {
  onSignal?: SignalSource | undefined;
  logger: Logger;
  /** After a termination signal, the longest time until the process ends (default 8 s). */
  graceMs?: number | undefined;
  /** Ends the process (the CLI); absent in-process (tests, the demo). */
  exit?: ((code: number) => void) | undefined;
}

export type Settled<T> = { kind: 'ended'; value: T } | { kind: 'abandoned'; exitCode: number };

/** Errors whose failure already reached the requester through the run's note. */
const reported = new WeakSet<object>();

/** The abort reason of a run stopped by a termination signal: it knows the process's exit code. */
export class TerminationCancel extends CancelledError {
  constructor(
    readonly terminatedBy: TerminationSignal,
    /** Who or what the signal stands for, once found out (the signal itself when nobody asks). */
    readonly explanation: Promise<CancelCause>,
  ) {
    super(`received ${terminatedBy}`);
  }

  get exitCode(): number {
    return exitCodeForSignal(this.terminatedBy);
  }
}

/**
 * The exit code a run's result must tell when its signal was aborted by a
 * termination signal (128 + its number, as the process exits); else undefined.
 */
export function terminationExitCode(signal: AbortSignal | undefined): number | undefined {
  return signal?.aborted && signal.reason instanceof TerminationCancel
    ? signal.reason.exitCode
    : undefined;
}

/** Who or what stopped a run whose signal was aborted by a termination signal; else undefined. */
export async function cancelCauseOf(
  signal: AbortSignal | undefined,
): Promise<CancelCause | undefined> {
  return signal?.aborted && signal.reason instanceof TerminationCancel
    ? signal.reason.explanation
    : undefined;
}

export function alreadyReported(error: unknown): boolean {
  return typeof error === 'object' && error !== null && reported.has(error);
}

export class RunLifecycle {
  readonly controller = new AbortController();
  private received: TerminationSignal | undefined;
  private explain: CancelExplainer | undefined;
  private cause: Promise<CancelCause> | undefined;
  private readonly arrived: Promise<void>;
  private readonly removeHandler: () => void;
  private readonly graceMs: number;

  constructor(private readonly options: LifecycleOptions) {
    this.graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
    let signalled: () => void = () => undefined;
    this.arrived = new Promise<void>((resolve) => (signalled = resolve));
    this.removeHandler =
      options.onSignal?.((name) => {
        const signal = (SIGNALS as readonly string[]).includes(name)
          ? (name as TerminationSignal)
          : 'SIGTERM';
        if (this.received) {
          // a second signal (Ctrl-C twice): end now; commands die with the process
          options.logger.warn('second termination signal, exiting now', { signal });
          options.exit?.(exitCodeForSignal(this.received));
          return;
        }
        this.received = signal;
        options.logger.warn('termination signal received, writing the final state', { signal });
        this.cause = this.explained(signal);
        this.controller.abort(new TerminationCancel(signal, this.cause));
        signalled();
      }) ?? (() => undefined);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /**
   * From now on a termination signal is explained by `explain` (who or what
   * sent it), for the final note; without one the signal itself is named.
   */
  explainWith(explain: CancelExplainer): void {
    this.explain = explain;
  }

  /** Who or what stopped the run, once a termination signal came. */
  cancelCause(): Promise<CancelCause | undefined> {
    return this.cause ?? Promise.resolve(undefined);
  }

  private async explained(signal: TerminationSignal): Promise<CancelCause> {
    const named: CancelCause = { kind: 'signal', signal };
    if (!this.explain) return named;
    try {
      return await this.explain(signal);
    } catch (error) {
      this.options.logger.warn('could not tell who cancelled the run', {
        error: (error as Error).message,
      });
      return named;
    }
  }

  /** The termination signal that came, if one did. */
  get terminatedBy(): TerminationSignal | undefined {
    return this.received;
  }

  /** The exit code of the process: 128 + the signal after one, else `code`. */
  exitCode(code: number): number {
    return this.received ? exitCodeForSignal(this.received) : code;
  }

  /**
   * Runs `work` — the run, once `reporting` (its note) exists. After a signal
   * it gets the grace period, less a reserve for the note; then the run is
   * abandoned and its end written here. A failure of `work` ends the note
   * ("failed", or "cancelled" after a signal) and is passed on.
   */
  async settle<T>(reporting: Reporting, work: () => Promise<T>): Promise<Settled<T>> {
    const reserve = this.reserve();
    const stop = new AbortController();
    const grace = this.arrived
      .then(() => systemClock.sleep(this.graceMs - reserve, stop.signal))
      .then(
        () => 'grace-over' as const,
        () => 'grace-over' as const,
      );
    const running = work();
    try {
      const first = await Promise.race([running, grace]);
      if (first === 'grace-over') {
        running.catch(() => undefined);
        return { kind: 'abandoned', exitCode: await this.abandon(reporting, reserve) };
      }
      return { kind: 'ended', value: first as T };
    } catch (error) {
      const cancelCause = await this.cancelCause();
      await reporting.abandon(
        {
          state: this.received ? 'cancelled' : 'failed',
          summary: describeError(error).message,
          exitCode: this.exitCode(exitCodeFor(error)),
          ...(cancelCause ? { cancelCause } : {}),
        },
        this.received ? reserve : 30_000,
      );
      if (typeof error === 'object' && error !== null) reported.add(error);
      throw error;
    } finally {
      stop.abort();
    }
  }

  /**
   * Work before the run and its note exist (start checks, checkout): after
   * a signal it is given up once the grace period is over, as a
   * `CancelledError`, so the process still ends in time.
   */
  async beforeRun<T>(work: Promise<T>): Promise<T> {
    const stop = new AbortController();
    const grace = this.arrived
      .then(() => systemClock.sleep(this.graceMs - this.reserve(), stop.signal))
      .then(
        () => {
          throw new CancelledError('the job was cancelled before the run started');
        },
        () => new Promise<never>(() => undefined),
      );
    work.catch(() => undefined);
    try {
      return await Promise.race([work, grace]);
    } finally {
      stop.abort();
    }
  }

  private reserve(): number {
    return Math.min(NOTE_RESERVE_MS, Math.floor(this.graceMs / 4));
  }

  private async abandon(reporting: Reporting, noteMs: number): Promise<number> {
    this.options.logger.error('the run did not stop within the grace period', {
      graceMs: this.graceMs,
    });
    const exitCode = this.exitCode(1);
    const cancelCause = await this.cancelCause();
    await reporting.abandon(
      {
        state: 'cancelled',
        summary: 'The job was cancelled and the run did not stop within its grace period.',
        exitCode,
        afterGrace: true,
        ...(cancelCause ? { cancelCause } : {}),
      },
      noteMs,
    );
    return exitCode;
  }

  /**
   * Removes the signal handler and returns the exit code. After a signal
   * the process is ended here: the run is over, and nothing it left
   * behind (a request GitLab never answers, a retry timer) may keep it alive.
   */
  close(code: number): number {
    this.removeHandler();
    const exitCode = this.exitCode(code);
    if (this.received) this.options.exit?.(exitCode);
    return exitCode;
  }
}
