import type { Logger } from '../log/logger.ts';
import { describeError } from '../errors/catalog.ts';
import type { CommandRequest } from '../commands/note-rules.ts';
import type { RefusalReason } from '../commands/replies.ts';
import { WorkQueue } from './work-queue.ts';

/**
 * Answers the commands the bridge could not take, so none goes unanswered:
 * each gets the 👀 claim and, up to `repliesPerWindow` per author and target
 * per window, a reply in its thread saying why. Past that the 👀 is the whole
 * answer, and one reply at the window's end (or the author's next replied
 * refusal) names how many were refused so, so a flood never makes the bridge
 * post a reply per comment. The work runs in a small queue of its own; when
 * even that is full, or too many authors are being refused at once, the
 * command is only logged.
 */
export interface Refusal {
  reason: RefusalReason;
  /** Refusals answered by 👀 alone that this reply names. */
  more: number;
  /** Answer with the 👀 claim only. */
  silent: boolean;
}

export interface RefusalDeskOptions {
  logger: Logger;
  repliesPerWindow: number;
  windowMs: number;
  /** Refusals waiting to be answered at most. */
  limit: number;
  /** Authors × targets followed at once at most. */
  maxBuckets: number;
  refuse(request: CommandRequest, refusal: Refusal): Promise<unknown>;
  summarize(request: CommandRequest, count: number): Promise<void>;
  now?: () => number;
}

interface Bucket {
  windowStart: number;
  replied: number;
  /** Refusals answered by 👀 alone, not named in a reply yet. */
  silent: number;
  last?: CommandRequest;
  timer?: NodeJS.Timeout;
}

type Job =
  | { kind: 'refuse'; request: CommandRequest; refusal: Refusal }
  | { kind: 'summary'; request: CommandRequest; count: number };

function bucketKey(request: CommandRequest): string {
  return `${request.projectId}:${request.user.id}:${request.target.kind}:${request.target.iid}`;
}

export class RefusalDesk {
  private readonly buckets = new Map<string, Bucket>();
  private readonly queue: WorkQueue<Job>;
  private readonly now: () => number;

  constructor(private readonly options: RefusalDeskOptions) {
    this.now = options.now ?? Date.now;
    this.queue = new WorkQueue<Job>({
      concurrency: 2,
      limit: options.limit,
      keyOf: (job) => bucketKey(job.request),
      run: async (job) => {
        if (job.kind === 'refuse') await options.refuse(job.request, job.refusal);
        else await options.summarize(job.request, job.count);
      },
      onError: (job, error) =>
        options.logger.error('refusal not answered', {
          noteId: job.request.noteId,
          error: describeError(error).message,
        }),
    });
  }

  get waiting(): number {
    return this.queue.size + this.queue.running;
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }

  /** Takes a refused command; false when it can only be logged. */
  refuse(request: CommandRequest, reason: RefusalReason): boolean {
    const key = bucketKey(request);
    const now = this.now();
    let bucket = this.buckets.get(key);
    if (!bucket) {
      if (this.buckets.size >= this.options.maxBuckets) return false;
      bucket = { windowStart: now, replied: 0, silent: 0 };
      this.buckets.set(key, bucket);
    } else if (now - bucket.windowStart >= this.options.windowMs) {
      bucket.windowStart = now;
      bucket.replied = 0;
    }
    if (bucket.replied < this.options.repliesPerWindow) {
      const refusal = { reason, more: bucket.silent, silent: false };
      if (!this.queue.push({ kind: 'refuse', request, refusal })) return false;
      bucket.replied++;
      bucket.silent = 0;
      clearTimeout(bucket.timer);
      delete bucket.timer;
      this.forgetLater(key, bucket);
      return true;
    }
    if (!this.queue.push({ kind: 'refuse', request, refusal: { reason, more: 0, silent: true } }))
      return false;
    bucket.silent++;
    bucket.last = request;
    this.forgetLater(key, bucket);
    return true;
  }

  /** At the window's end: the summary of silent refusals, if any, then the bucket is forgotten. */
  private forgetLater(key: string, bucket: Bucket): void {
    if (bucket.timer) return;
    const delay = Math.max(0, bucket.windowStart + this.options.windowMs - this.now());
    bucket.timer = setTimeout(() => {
      delete bucket.timer;
      if (bucket.silent > 0 && bucket.last) {
        const pushed = this.queue.push({
          kind: 'summary',
          request: bucket.last,
          count: bucket.silent,
        });
        if (!pushed) this.options.logger.warn('refusal summary dropped', { count: bucket.silent });
      }
      this.buckets.delete(key);
    }, delay);
    bucket.timer.unref();
  }

  /** Stops the window timers (shutdown): their summaries are not posted. */
  close(): void {
    for (const bucket of this.buckets.values()) clearTimeout(bucket.timer);
    this.buckets.clear();
  }
}

/** Refusals replied to one by one, per author and target and minute; past that the 👀 answers. */
const REFUSAL_REPLIES_PER_MINUTE = 3;

/** The bridge's desk, when it is given the handlers (as many refusals may wait as commands may). */
export function refusalDeskFor(
  deps: {
    logger: Logger;
    handleRefusal?(request: CommandRequest, refusal: Refusal): Promise<unknown>;
    handleRefusalSummary?(request: CommandRequest, count: number): Promise<void>;
  },
  queueLimit: number,
): RefusalDesk | undefined {
  const { handleRefusal, handleRefusalSummary } = deps;
  if (!handleRefusal || !handleRefusalSummary) return undefined;
  return new RefusalDesk({
    logger: deps.logger,
    repliesPerWindow: REFUSAL_REPLIES_PER_MINUTE,
    windowMs: 60_000,
    limit: queueLimit,
    maxBuckets: 4 * queueLimit,
    refuse: (request, refusal) => handleRefusal(request, refusal),
    summarize: (request, count) => handleRefusalSummary(request, count),
  });
}
