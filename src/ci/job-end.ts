import { describeError } from '../errors/catalog.ts';
import { CancelledError } from '../errors/errors.ts';
import { exitCodeForSignal, type TerminationSignal } from '../report/termination.ts';
import type { RunOutcome } from '../core/outcome.ts';
import type { CarriedOut, CarryOutDeps } from './job-types.ts';
import type { CiSession } from './session.ts';

/**
 * How a CI job's run ends (M6, H1): a termination signal (GitLab cancelling
 * the job, or its timeout) aborts the run, which writes its final state; a
 * run that does not stop within the grace period gets it written here; and
 * whatever fails around the run once its note exists still ends the note.
 */
/** Aborts the run on SIGTERM/SIGINT (job cancelled or timed out, M6); remembers the signal. */
export function watchSignals(deps: CarryOutDeps, controller: AbortController) {
  const seen: { signal?: TerminationSignal } = {};
  let signalled: () => void = () => undefined;
  const arrived = new Promise<void>((resolve) => (signalled = resolve));
  const remove = deps.onSignal?.((signal) => {
    seen.signal = (
      ['SIGTERM', 'SIGINT', 'SIGHUP'].includes(signal) ? signal : 'SIGTERM'
    ) as TerminationSignal;
    deps.logger.warn('termination signal received, writing the final state', { signal });
    controller.abort(new CancelledError(`received ${signal}`));
    signalled();
  });
  return { seen, arrived, remove: remove ?? (() => undefined) };
}

export type Signals = ReturnType<typeof watchSignals>;

/** Whatever fails around the run once its note exists still ends the note (never left running, H1). */
export async function guarded<T>(session: CiSession, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    await session.reporting.publisher.finish({
      state: 'failed',
      summary: describeError(error).message,
    });
    throw error;
  }
}

/**
 * Waits for the run; after a signal at most `graceMs` more. A run that does
 * not stop in time gets its note's final state written here (M6).
 */
export async function settle(
  session: CiSession,
  run: Promise<RunOutcome>,
  signals: Signals,
  deps: CarryOutDeps,
): Promise<CarriedOut> {
  const stop = new AbortController();
  const grace = signals.arrived
    .then(() => deps.services.clock.sleep(deps.graceMs ?? 8000, stop.signal))
    .then(
      () => undefined,
      () => undefined,
    );
  try {
    const outcome = await Promise.race([run, grace]);
    const signal = signals.seen.signal;
    if (!outcome) {
      deps.logger.error('final state not written within the grace period');
      await session.reporting.publisher.finish({
        state: 'cancelled',
        summary: 'The job was cancelled and the run did not stop within its grace period.',
      });
      return { exitCode: exitCodeForSignal(signal ?? 'SIGTERM') };
    }
    return {
      exitCode: signal ? exitCodeForSignal(signal) : outcome.exitCode,
      run: { outcome, session },
    };
  } finally {
    stop.abort();
  }
}
