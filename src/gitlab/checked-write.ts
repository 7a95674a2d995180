/**
 * Writes that must not happen twice (two notes, two merge requests): a POST whose answer
 * is lost — no answer in time, a reset connection, a 5xx from GitLab or a
 * proxy in front of it — may have been carried out all the same. Sending it
 * again blind gives a second note, a second merge request, a second pipeline.
 * So after such a failure the write is looked for first (`landed`); only when
 * it is surely not there is it sent again, backing off through the Clock. A
 * write is taken as done only when its answer came or it was found. When the
 * look-up itself fails, the first error is passed on: nothing is repeated on
 * a guess. Failures that say the write was refused (4xx) are passed on at once.
 */
import { ExternalServiceError } from '../errors/errors.ts';
import type { Logger } from '../log/logger.ts';
import type { Clock } from '../core/clock.ts';
import { DEFAULT_RETRY_POLICY, neverSent, type RetryPolicy } from './requester.ts';

/**
 * A failure after which the write may still have been carried out: no answer
 * (a timeout, a reset), or a 5xx. Not a refused connection or an unknown
 * host: those never reached GitLab (the requester already repeated them).
 */
export function mayHaveLanded(error: unknown): boolean {
  if (!(error instanceof ExternalServiceError)) return false;
  if (error.status !== undefined) return error.status >= 500;
  return !neverSent(error.cause);
}

export interface CheckedWrite<T> {
  /** What is written, for the log (`POST note`). */
  what: string;
  write: () => Promise<T>;
  /** The written thing when it is there after all; undefined when it is not. */
  landed: () => Promise<T | undefined>;
}

export interface CheckedWriterDeps {
  clock: Clock;
  logger?: Logger | undefined;
  policy?: Partial<RetryPolicy> | undefined;
}

export class CheckedWriter {
  private readonly policy: RetryPolicy;

  constructor(private readonly deps: CheckedWriterDeps) {
    this.policy = { ...DEFAULT_RETRY_POLICY, ...deps.policy };
  }

  async run<T>(check: CheckedWrite<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await check.write();
      } catch (error) {
        if (!mayHaveLanded(error)) throw error;
        const found = await this.lookUp(check, error);
        if (found !== undefined) {
          this.deps.logger?.warn('GitLab write landed although its answer was lost', {
            write: check.what,
            attempt: attempt + 1,
          });
          return found;
        }
        if (attempt >= this.policy.maxRetries) throw error;
        const waitMs = Math.min(this.policy.maxDelayMs, this.policy.baseDelayMs * 2 ** attempt);
        this.deps.logger?.warn('GitLab write not carried out, sending it again', {
          write: check.what,
          attempt: attempt + 1,
          waitMs,
          error: (error as Error).message,
        });
        await this.deps.clock.sleep(waitMs);
      }
    }
  }

  private async lookUp<T>(check: CheckedWrite<T>, original: unknown): Promise<T | undefined> {
    try {
      return await check.landed();
    } catch (lookupError) {
      this.deps.logger?.warn('GitLab write of unknown fate: the check failed, not repeated', {
        write: check.what,
        error: (lookupError as Error).message,
      });
      throw original;
    }
  }
}
