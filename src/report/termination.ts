/**
 * SIGTERM handling: when GitLab cancels the job or it times out,
 * the runner sends SIGTERM and, a little later, SIGKILL. The handler runs the
 * given finaliser (write the final state to the note and the history) within
 * a grace period, then exits. A second signal exits at once.
 */
import type { Logger } from '../log/logger.ts';

/** SIGPIPE stands for a closed output: the CLI is told so when a write fails with EPIPE. */
export type TerminationSignal = 'SIGTERM' | 'SIGINT' | 'SIGHUP' | 'SIGPIPE';

const SIGNAL_NUMBERS: Readonly<Record<TerminationSignal, number>> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGPIPE: 13,
  SIGTERM: 15,
};

/** The conventional exit code for a signal: 128 + its number (SIGTERM → 143). */
export function exitCodeForSignal(signal: TerminationSignal): number {
  return 128 + SIGNAL_NUMBERS[signal];
}

/** The part of `process` used here, injectable for tests. */
export interface SignalSource {
  on(event: TerminationSignal, listener: () => void): unknown;
  off(event: TerminationSignal, listener: () => void): unknown;
}

export interface TerminationOptions {
  source: SignalSource;
  /** Writes the final state; given the signal's name. */
  finalize: (signal: TerminationSignal) => Promise<void>;
  exit: (code: number) => void;
  logger: Logger;
  signals?: readonly TerminationSignal[];
  /** Longest time the finaliser may take before the process exits anyway (default 8 s). */
  graceMs?: number;
}

/** Installs the handlers; the returned function removes them again (call it when the run ends). */
export function handleTermination(options: TerminationOptions): () => void {
  const signals = options.signals ?? ['SIGTERM', 'SIGINT'];
  let handling = false;
  const listeners = signals.map((signal) => {
    const listener = () => {
      const code = exitCodeForSignal(signal);
      if (handling) {
        options.logger.warn('second termination signal, exiting now', { signal });
        options.exit(code);
        return;
      }
      handling = true;
      options.logger.warn('termination signal received, writing final state', { signal });
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          options.logger.error('final state not written within the grace period', { signal });
          resolve();
        }, options.graceMs ?? 8000);
      });
      const finalize = options.finalize(signal).catch((error: unknown) => {
        options.logger.error('writing the final state failed', {
          signal,
          error: error instanceof Error ? error.message : String(error),
        });
      });
      void Promise.race([finalize, grace]).then(() => {
        clearTimeout(timer);
        options.exit(code);
      });
    };
    options.source.on(signal, listener);
    return [signal, listener] as const;
  });
  return () => {
    for (const [signal, listener] of listeners) options.source.off(signal, listener);
  };
}
