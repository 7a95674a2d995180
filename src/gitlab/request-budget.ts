/**
 * Bounds on a job's GitLab calls, as a decorator over the GitLab port:
 *
 * - **The request budget** (`gitlab.request_budget_sec`): once GitLab has
 *   given no usable answer for that long — timeouts, connection errors, 5xx,
 *   429 — every call fails at once, and a call in flight is given up when the
 *   budget runs out. Any answer (also a 4xx) shows GitLab is there and starts
 *   the budget afresh. A silent GitLab therefore ends the job after about the
 *   budget, not after every retry of every call.
 * - **Cancellation** (an abort signal): after it, calls fail with
 *   `CancelledError` at once and calls in flight are given up — delivery
 *   uses this so that nothing is pushed or opened once the job is cancelled.
 *
 * Timing is wall-clock (like the grace period): these are safety nets,
 * whatever clock the rest of the run uses.
 */
import { CancelledError, ExternalServiceError } from '../errors/errors.ts';
import type { GitLabPort } from '../core/gitlab-port.ts';

export class RequestBudget {
  private failingSince: number | undefined;

  constructor(
    /** Adjustable once the repository's configuration is read. */
    public budgetMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** When a call starting now must have an answer by. */
  deadline(start: number): number {
    return (this.failingSince ?? start) + this.budgetMs;
  }

  answered(): void {
    this.failingSince = undefined;
  }

  unanswered(start: number): void {
    this.failingSince ??= start;
  }

  time(): number {
    return this.now();
  }

  error(): ExternalServiceError {
    const seconds = Math.round(this.budgetMs / 1000);
    return new ExternalServiceError(
      'GitLab',
      `GitLab gave no usable answer for ${seconds} s (gitlab.request_budget_sec); the job stops waiting for it`,
      {
        where: 'gitlab.request_budget_sec',
        hintKey: 'hint.gitlab.budget',
      },
    );
  }
}

/** A failure that says nothing about GitLab being there: no answer, 5xx or 429. */
function unanswered(error: unknown): boolean {
  if (!(error instanceof ExternalServiceError)) return false;
  return error.status === undefined || error.status >= 500 || error.status === 429;
}

const cancelled = () => new CancelledError('the job was cancelled');

/** Resolves or rejects with `call`, or rejects when `limitMs` pass or `signal` aborts first. */
function bounded<T>(
  call: Promise<T>,
  limitMs: number,
  onLimit: () => Error,
  signal: AbortSignal | undefined,
): Promise<T> {
  // the call may still settle after it was given up: never as an unhandled rejection
  call.catch(() => undefined);
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => finish(() => reject(onLimit())), limitMs);
    const onAbort = () => finish(() => reject(cancelled()));
    const finish = (settle: () => void) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      settle();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    call.then(
      (value) => finish(() => resolve(value)),
      (error: unknown) => finish(() => reject(error as Error)),
    );
  });
}

export interface GuardOptions {
  budget?: RequestBudget;
  signal?: AbortSignal;
}

async function guardedCall<T>(run: () => Promise<T>, { budget, signal }: GuardOptions): Promise<T> {
  if (signal?.aborted) throw cancelled();
  const start = budget?.time() ?? Date.now();
  const limit = budget ? budget.deadline(start) - start : Number.MAX_SAFE_INTEGER;
  if (budget && limit <= 0) throw budget.error();
  try {
    const value = await bounded(
      run(),
      Math.min(limit, 2 ** 31 - 1),
      () => budget?.error() ?? cancelled(),
      signal,
    );
    budget?.answered();
    return value;
  } catch (error) {
    if (error instanceof CancelledError) throw error;
    if (budget && unanswered(error)) budget.unanswered(start);
    else budget?.answered();
    throw error;
  }
}

/** The GitLab port with every call bounded by the budget and the abort signal. */
export function guardGitLab(port: GitLabPort, options: GuardOptions): GitLabPort {
  if (!options.budget && !options.signal) return port;
  return new Proxy(port, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) =>
        guardedCall(
          () => (value as (...a: unknown[]) => Promise<unknown>).apply(target, args),
          options,
        );
    },
  });
}
