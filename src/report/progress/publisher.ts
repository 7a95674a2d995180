/**
 * Keeps the one progress note of a run up to date, also when the job is cancelled.
 *
 * - `start()` creates the note at once; later changes only edit it.
 * - `update()` changes the state; edits are coalesced and throttled: the
 *   next write starts at least `editIntervalMs` (`gitlab.note_edit_interval_ms`)
 *   after the previous one ENDED, so GitLab never sees two edits closer than
 *   that, however slow an answer; none when the rendered text did not change.
 *   A failed write is retried later, backing off.
 * - `flush()` writes pending changes now (still keeping the interval);
 *   `finish()` writes the final state — call it on success, failure and
 *   SIGTERM (see `handleTermination`); it is idempotent.
 *
 * Every body goes through redaction, quick-action escaping and truncation.
 */
import type { Logger } from '../../log/logger.ts';
import type { Redactor } from '../../log/redact.ts';
import type { Clock } from '../../core/clock.ts';
import { systemClock } from '../../core/clock.ts';
import { prepareNoteBody } from '../note-body.ts';
import type { NoteTarget } from '../../core/note-target.ts';
import { renderProgressNote } from './render.ts';
import type { Scheduler } from './scheduler.ts';
import { systemScheduler } from './scheduler.ts';
import { finishRun } from '../../core/progress/updates.ts';
import type { FinalState, ProgressState } from '../../core/progress/model.ts';

export interface ProgressPublisherOptions {
  target: NoteTarget;
  redactor: Redactor;
  logger: Logger;
  clock?: Clock;
  scheduler?: Scheduler;
  /** Least time between two writes (default 1000 ms). */
  editIntervalMs?: number;
  /** Defaults to `renderProgressNote`. */
  render?: (state: ProgressState) => string;
  maxChars?: number;
  /** Attempts of the final write (default 3). */
  finalAttempts?: number;
}

export interface PublisherStats {
  creates: number;
  edits: number;
  /** Writes skipped because the text was unchanged. */
  unchanged: number;
  failures: number;
}

/** Longest back-off after failed writes: interval × 2^5. */
const MAX_BACKOFF_EXPONENT = 5;

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class ProgressPublisher {
  readonly stats: PublisherStats = { creates: 0, edits: 0, unchanged: 0, failures: 0 };
  private state: ProgressState;
  private readonly clock: Clock;
  private readonly scheduler: Scheduler;
  private readonly interval: number;
  private readonly render: (state: ProgressState) => string;
  private id: string | undefined;
  private url: string | undefined;
  private lastBody: string | undefined;
  private lastWriteAt = Number.NEGATIVE_INFINITY;
  private failureStreak = 0;
  private dirty = true;
  private cancelTimer: (() => void) | undefined;
  private inFlight: Promise<boolean> | undefined;
  private flushing = 0;
  private finishing: Promise<boolean> | undefined;

  private constructor(
    private readonly options: ProgressPublisherOptions,
    initial: ProgressState,
  ) {
    this.state = initial;
    this.clock = options.clock ?? systemClock;
    this.scheduler = options.scheduler ?? systemScheduler;
    this.interval = options.editIntervalMs ?? 1000;
    this.render = options.render ?? renderProgressNote;
  }

  /** Creates the note for `initial` and returns the publisher (a failed create is retried later). */
  static async start(
    options: ProgressPublisherOptions,
    initial: ProgressState,
  ): Promise<ProgressPublisher> {
    const publisher = new ProgressPublisher(options, initial);
    await publisher.write();
    if (publisher.dirty) publisher.schedule();
    return publisher;
  }

  get current(): ProgressState {
    return this.state;
  }

  get noteId(): string | undefined {
    return this.id;
  }

  get noteUrl(): string | undefined {
    return this.url;
  }

  get finished(): boolean {
    return this.finishing !== undefined;
  }

  /** Applies a change; the note follows within the edit interval. Ignored after `finish()`. */
  update(change: (state: ProgressState) => ProgressState): void {
    if (this.finishing) {
      this.options.logger.debug('progress update after finish ignored');
      return;
    }
    this.state = change(this.state);
    this.dirty = true;
    this.schedule();
  }

  /** Writes what is pending now (waiting out the rest of the interval); true when the note is current. */
  async flush(): Promise<boolean> {
    this.flushing += 1;
    try {
      this.clearTimer();
      while (this.inFlight) await this.inFlight;
      if (!this.dirty) return true;
      const wait = this.lastWriteAt + this.interval - this.clock.now();
      if (wait > 0) await this.clock.sleep(wait);
      while (this.inFlight) await this.inFlight;
      return this.dirty ? await this.write() : true;
    } finally {
      this.flushing -= 1;
      if (this.dirty && this.flushing === 0) this.schedule();
    }
  }

  /** Writes the final state; later calls return the first call's result. Never throws. */
  finish(end: { state: FinalState; summary: string }): Promise<boolean> {
    if (this.finishing) return this.finishing;
    this.clearTimer();
    this.state = finishRun(this.state, { ...end, at: this.clock.now() });
    this.dirty = true;
    this.finishing = this.writeFinal();
    return this.finishing;
  }

  private async writeFinal(): Promise<boolean> {
    const attempts = this.options.finalAttempts ?? 3;
    for (let attempt = 1; attempt <= attempts; attempt += 1) {
      if (await this.flush()) return true;
    }
    this.options.logger.error('progress note final state not written', { attempts });
    return false;
  }

  private clearTimer(): void {
    this.cancelTimer?.();
    this.cancelTimer = undefined;
  }

  private schedule(): void {
    if (this.cancelTimer || this.inFlight || this.flushing > 0 || this.finishing) return;
    const backoff = 2 ** Math.min(this.failureStreak, MAX_BACKOFF_EXPONENT);
    const wait = Math.max(0, this.lastWriteAt + this.interval * backoff - this.clock.now());
    this.cancelTimer = this.scheduler.schedule(() => {
      this.cancelTimer = undefined;
      void this.write().then(() => {
        if (this.dirty) this.schedule();
      });
    }, wait);
  }

  /** One write, serialised with any other. */
  private write(): Promise<boolean> {
    if (this.inFlight) return this.inFlight;
    const attempt = this.writeOnce().finally(() => {
      this.inFlight = undefined;
    });
    this.inFlight = attempt;
    return attempt;
  }

  private async writeOnce(): Promise<boolean> {
    this.dirty = false;
    let body: string;
    try {
      body = prepareNoteBody(this.render(this.state), {
        redactor: this.options.redactor,
        maxChars: this.options.maxChars,
      });
    } catch (error) {
      this.options.logger.error('progress note rendering failed', { error: message(error) });
      return false;
    }
    if (body === this.lastBody) {
      this.stats.unchanged += 1;
      return true;
    }
    try {
      if (this.id === undefined) {
        const note = await this.options.target.createNote(body);
        this.id = note.id;
        this.url = note.url;
        this.stats.creates += 1;
      } else {
        await this.options.target.editNote(this.id, body);
        this.stats.edits += 1;
      }
      this.lastBody = body;
      this.failureStreak = 0;
      return true;
    } catch (error) {
      this.stats.failures += 1;
      this.failureStreak += 1;
      this.dirty = true;
      this.options.logger.warn('progress note write failed', {
        noteId: this.id,
        failures: this.failureStreak,
        error: message(error),
      });
      return false;
    } finally {
      // paced from the end of the write: a slow answer does not shorten the gap GitLab sees
      this.lastWriteAt = this.clock.now();
    }
  }
}
