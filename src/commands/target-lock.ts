import type { BridgeGitLab } from './bridge-port.ts';
import type { CommandTarget } from './note-rules.ts';

/**
 * A lock per merge request or issue, held in GitLab so every bridge replica
 * sees it: the bot's 🔒 award on the merge request or issue itself. GitLab
 * keeps one award of a name per user and awardable, so of several replicas
 * awarding it at once exactly one succeeds; the others wait until it is
 * removed. The holder checks the running pipelines and triggers one, then
 * removes the award. A holder that died leaves its award behind: an award
 * older than `staleMs` (GitLab's own `created_at`) is removed by whoever
 * waits, and the lock is taken again through the same award race. The work
 * under the lock is a few API calls, far below `staleMs`.
 */
export const LOCK_EMOJI = 'lock';

export interface TargetLockOptions {
  /** The token's own user, or how to learn it (asked only when the lock is found held). */
  selfId: number | (() => Promise<number>);
  /** An award older than this is a dead holder's (default 2 minutes). */
  staleMs?: number;
  /** How long to wait for the lock before giving up (default 30 s). */
  waitMs?: number;
  now?: () => number;
  /** A lock that could not be removed is left to go stale; this hears why. */
  onReleaseError?: (error: unknown) => void;
  sleep?: (ms: number) => Promise<void>;
}

/** A lock this holder has: `release` removes it (a failure goes to `onReleaseError`). */
export interface HeldLock {
  release(): Promise<void>;
}

export interface TargetLock {
  /** Takes the target's lock; `undefined` when it stayed held past `waitMs`. */
  acquire(projectId: number, target: CommandTarget): Promise<HeldLock | undefined>;
  /** Runs `work` holding the target's lock, removed before this returns; `undefined` as `acquire`. */
  withLock<T>(
    projectId: number,
    target: CommandTarget,
    work: () => Promise<T>,
  ): Promise<{ done: T } | undefined>;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createTargetLock(
  gitlab: BridgeGitLab,
  options: TargetLockOptions,
): TargetLock | undefined {
  const { awardTargetEmoji, listTargetAwardEmoji, removeTargetAwardEmoji } = gitlab;
  if (!awardTargetEmoji || !listTargetAwardEmoji || !removeTargetAwardEmoji) return undefined;
  const staleMs = options.staleMs ?? 120_000;
  const waitMs = options.waitMs ?? 30_000;
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? defaultSleep;

  async function awardLock(projectId: number, target: CommandTarget): Promise<number | undefined> {
    const started = now();
    let refusedUnheld = 0;
    for (let attempt = 0; ; attempt++) {
      const award = await awardTargetEmoji!.call(gitlab, projectId, target, LOCK_EMOJI);
      if (award.awarded) return award.award.id;
      const [awards, selfId] = await Promise.all([
        listTargetAwardEmoji!.call(gitlab, projectId, target),
        typeof options.selfId === 'number' ? options.selfId : options.selfId(),
      ]);
      const held = awards.find((a) => a.name === LOCK_EMOJI && a.user.id === selfId);
      if (held) {
        const since = held.createdAt ? Date.parse(held.createdAt) : NaN;
        if (Number.isFinite(since) && now() - since > staleMs) {
          await removeTargetAwardEmoji!.call(gitlab, projectId, target, held.id);
          continue;
        }
      } else if (!refusedUnheld++) {
        continue; // released in between: award again at once
      }
      // held by another, or refused again with none held (GitLab will not take it): wait, at most waitMs
      if (now() - started >= waitMs) return undefined;
      // spread the waiters out: 50 ms, 100 ms, … up to 800 ms, with jitter
      const step = Math.min(800, 50 * 2 ** Math.min(attempt, 4));
      await sleep(step / 2 + Math.random() * step);
    }
  }

  async function take(projectId: number, target: CommandTarget): Promise<HeldLock | undefined> {
    const awardId = await awardLock(projectId, target);
    if (awardId === undefined) return undefined;
    return {
      release: () =>
        removeTargetAwardEmoji!
          .call(gitlab, projectId, target, awardId)
          .catch((error: unknown) => options.onReleaseError?.(error)),
    };
  }

  return {
    acquire: take,
    async withLock(projectId, target, work) {
      const held = await take(projectId, target);
      if (!held) return undefined;
      try {
        return { done: await work() };
      } finally {
        await held.release();
      }
    },
  };
}
