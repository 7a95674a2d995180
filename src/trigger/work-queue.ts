/**
 * A bounded in-memory work queue: at most `concurrency` items run at once, at
 * most `limit` wait, and items with the same key run one after another (so
 * two commands on one merge request are handled in order, and the second sees
 * the pipeline the first started). `push` refuses when full instead of
 * growing, which keeps the bridge's memory bounded under a flood. With
 * `groupOf`, one group (an author) may hold at most `groupLimit` waiting
 * items, so one noisy author cannot fill the queue for everyone else.
 */
export interface WorkQueueOptions<T> {
  concurrency: number;
  limit: number;
  keyOf(item: T): string;
  /** The fairness group of an item (e.g. its author); with `groupLimit`. */
  groupOf?(item: T): string;
  groupLimit?: number;
  run(item: T): Promise<void>;
  /** Called when `run` rejects; the queue itself never rejects. */
  onError(item: T, error: unknown): void;
}

export class WorkQueue<T> {
  private readonly waiting: T[] = [];
  private readonly runningKeys = new Set<string>();
  private readonly waitingPerGroup = new Map<string, number>();
  private active = 0;
  private idleWaiters: (() => void)[] = [];

  constructor(private readonly options: WorkQueueOptions<T>) {}

  get size(): number {
    return this.waiting.length;
  }

  get running(): number {
    return this.active;
  }

  /** Adds an item; `full` when the queue is, `group-full` when its group has its share waiting. */
  offer(item: T): 'queued' | 'full' | 'group-full' {
    if (this.waiting.length >= this.options.limit) return 'full';
    const { groupOf, groupLimit } = this.options;
    const group = groupOf?.(item);
    if (group !== undefined && groupLimit !== undefined) {
      if ((this.waitingPerGroup.get(group) ?? 0) >= groupLimit) return 'group-full';
      this.waitingPerGroup.set(group, (this.waitingPerGroup.get(group) ?? 0) + 1);
    }
    this.waiting.push(item);
    this.pump();
    return 'queued';
  }

  /** Adds an item; false when the queue (or the item's group) is full. */
  push(item: T): boolean {
    return this.offer(item) === 'queued';
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
      this.leaveGroup(item);
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

  private leaveGroup(item: T): void {
    const group = this.options.groupOf?.(item);
    if (group === undefined) return;
    const count = (this.waitingPerGroup.get(group) ?? 1) - 1;
    if (count > 0) this.waitingPerGroup.set(group, count);
    else this.waitingPerGroup.delete(group);
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
