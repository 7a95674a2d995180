/**
 * A bounded in-memory work queue: at most `concurrency` items run at once, at
 * most `limit` wait, and items with the same key run one after another (so
 * two commands on one merge request are handled in order, and the second sees
 * the pipeline the first started). `push` refuses when full instead of
 * growing, which keeps the bridge's memory bounded under a flood.
 */
export interface WorkQueueOptions<T> {
  concurrency: number;
  limit: number;
  keyOf(item: T): string;
  run(item: T): Promise<void>;
  /** Called when `run` rejects; the queue itself never rejects. */
  onError(item: T, error: unknown): void;
}

export class WorkQueue<T> {
  private readonly waiting: T[] = [];
  private readonly runningKeys = new Set<string>();
  private active = 0;
  private idleWaiters: (() => void)[] = [];

  constructor(private readonly options: WorkQueueOptions<T>) {}

  get size(): number {
    return this.waiting.length;
  }

  get running(): number {
    return this.active;
  }

  /** Adds an item; false when the queue is full. */
  push(item: T): boolean {
    if (this.waiting.length >= this.options.limit) return false;
    this.waiting.push(item);
    this.pump();
    return true;
  }

  /** Resolves when nothing waits and nothing runs. */
  idle(): Promise<void> {
    if (this.active === 0 && this.waiting.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private nextIndex(): number {
    return this.waiting.findIndex((item) => !this.runningKeys.has(this.options.keyOf(item)));
  }

  private pump(): void {
    while (this.active < this.options.concurrency) {
      const index = this.nextIndex();
      if (index === -1) break;
      const [item] = this.waiting.splice(index, 1) as [T];
      const key = this.options.keyOf(item);
      this.active++;
      this.runningKeys.add(key);
      void this.execute(item).finally(() => {
        this.active--;
        this.runningKeys.delete(key);
        this.pump();
        this.notifyIdle();
      });
    }
  }

  private async execute(item: T): Promise<void> {
    try {
      await this.options.run(item);
    } catch (error) {
      try {
        this.options.onError(item, error);
      } catch {
        // an error reporter that fails must not stop the queue
      }
    }
  }

  private notifyIdle(): void {
    if (this.active !== 0 || this.waiting.length !== 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
