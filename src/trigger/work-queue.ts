/**
 * A bounded in-memory work queue: at most `concurrency` items run at once, at
 * most `limit` wait, and items with the same key run one after another (so
 * two commands on one merge request are handled in order, and the second sees
 * the pipeline the first started). `push` refuses when full instead of
 * growing, which keeps the bridge's memory bounded under a flood. With
 * `groupOf`, one group (an author) may hold at most `groupLimit` waiting
 * items, so one noisy author cannot fill the queue for everyone else, and
 * the groups take turns: each item gets a round, one past its group's
 * previous item (running or waiting) and never before the round being served,
 * and the lowest round runs first (arrival order within a round). So one
 * author's many commands never delay another author's first. Without
 * `groupOf` every item is in one group: first in, first out.
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

interface Waiting<T> {
  item: T;
  group: string;
  round: number;
  seq: number;
}

interface GroupTurns {
  /** Items of the group waiting. */
  waiting: number;
  /** Items of the group running. */
  running: number;
  /** The round of the group's latest item, running or waiting. */
  lastRound: number;
}

export class WorkQueue<T> {
  private readonly waiting: Waiting<T>[] = [];
  private readonly runningKeys = new Set<string>();
  /** Groups with an item waiting, or whose latest item's round is still being served. */
  private readonly groups = new Map<string, GroupTurns>();
  /** The round of the item started last. */
  private round = 0;
  private seq = 0;
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
    const group = this.options.groupOf?.(item) ?? '';
    const turns = this.groups.get(group);
    const { groupLimit } = this.options;
    if (this.options.groupOf && groupLimit !== undefined && (turns?.waiting ?? 0) >= groupLimit) {
      return 'group-full';
    }
    const round = turns ? Math.max(this.round, turns.lastRound + 1) : this.round;
    this.groups.set(group, {
      waiting: (turns?.waiting ?? 0) + 1,
      running: turns?.running ?? 0,
      lastRound: round,
    });
    this.waiting.push({ item, group, round, seq: this.seq++ });
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

  /** The waiting item of the lowest round (then the earliest) whose key is not running. */
  private nextIndex(): number {
    let best = -1;
    for (let i = 0; i < this.waiting.length; i++) {
      const candidate = this.waiting[i]!;
      if (this.runningKeys.has(this.options.keyOf(candidate.item))) continue;
      const current = this.waiting[best];
      if (!current || candidate.round < current.round) best = i;
    }
    return best;
  }

  private pump(): void {
    while (this.active < this.options.concurrency) {
      const index = this.nextIndex();
      if (index === -1) break;
      const [next] = this.waiting.splice(index, 1) as [Waiting<T>];
      this.startRound(next);
      const { item } = next;
      const key = this.options.keyOf(item);
      this.active++;
      this.runningKeys.add(key);
      void this.execute(item).finally(() => {
        this.active--;
        this.runningKeys.delete(key);
        this.finished(next.group);
        this.pump();
        this.notifyIdle();
      });
    }
  }

  /** Books a started item: its group waits one item less and runs one more. */
  private startRound(started: Waiting<T>): void {
    const turns = this.groups.get(started.group);
    if (turns) {
      turns.waiting--;
      turns.running++;
    }
    if (started.round > this.round) {
      this.round = started.round;
      this.forgetIdleGroups();
    }
  }

  private finished(group: string): void {
    const turns = this.groups.get(group);
    if (turns) turns.running--;
    this.forgetIdleGroups(group);
  }

  /**
   * A group with nothing waiting or running is forgotten once its last round
   * is over or nothing waits at all; also (bounded memory under a flood of
   * distinct authors) when the groups outnumber what the queue holds four
   * times over. Without `only`, every group is looked at.
   */
  private forgetIdleGroups(only?: string): void {
    const crowded = this.groups.size > 4 * this.options.limit;
    const entries = only === undefined || crowded ? this.groups : [[only, this.groups.get(only)]];
    for (const [group, turns] of entries as Iterable<[string, GroupTurns | undefined]>) {
      if (!turns || turns.waiting > 0 || turns.running > 0) continue;
      if (turns.lastRound < this.round || this.waiting.length === 0 || crowded) {
        this.groups.delete(group);
      }
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
