import type { FakeClock } from '../../src/core/clock.ts';
import type { Scheduler } from '../../src/report/progress/scheduler.ts';

interface Pending {
  at: number;
  fn: () => void;
  cancelled: boolean;
}

/** A Scheduler driven by a FakeClock: `advance(ms)` moves time and runs what came due. */
export class ManualScheduler implements Scheduler {
  private pending: Pending[] = [];

  constructor(private readonly clock: FakeClock) {}

  schedule(fn: () => void, delayMs: number): () => void {
    const entry: Pending = { at: this.clock.now() + Math.max(0, delayMs), fn, cancelled: false };
    this.pending.push(entry);
    return () => {
      entry.cancelled = true;
    };
  }

  get size(): number {
    return this.pending.filter((p) => !p.cancelled).length;
  }

  /** Advances the clock by `ms`, running due timers in order and letting promises settle. */
  async advance(ms: number): Promise<void> {
    const end = this.clock.now() + ms;
    for (;;) {
      await settle();
      const due = this.pending
        .filter((p) => !p.cancelled && p.at <= end)
        .sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.pending = this.pending.filter((p) => p !== due);
      if (due.at > this.clock.now()) this.clock.advance(due.at - this.clock.now());
      due.fn();
    }
    if (end > this.clock.now()) this.clock.advance(end - this.clock.now());
    await settle();
  }
}

/** Lets queued promise callbacks run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 20; i += 1) await new Promise<void>((resolve) => setImmediate(resolve));
}
