/**
 * Timers as a port, so the publisher's throttle is tested without real
 * waiting: `systemScheduler` uses setTimeout; tests drive a manual one.
 */
export interface Scheduler {
  /** Runs `fn` once after `delayMs`; the returned function cancels it. */
  schedule(fn: () => void, delayMs: number): () => void;
}

export const systemScheduler: Scheduler = {
  schedule(fn, delayMs) {
    const timer = setTimeout(fn, Math.max(0, delayMs));
    return () => clearTimeout(timer);
  },
};
