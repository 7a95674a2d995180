import { describeError } from '../errors/catalog.ts';
import type { Logger } from '../log/logger.ts';
import type { BridgeGitLab } from '../commands/bridge-port.ts';
import type { Note } from '../core/gitlab-port.ts';
import { createTargetLock, type TargetLock } from '../commands/target-lock.ts';

/**
 * The lock a TRIGGER_PAYLOAD job holds, through its own GitLab client, around
 * "look for the target's run, then go on as it": the bridge's 🔒 award on the
 * merge request or issue (../commands/target-lock.ts). Every comment starts a
 * pipeline there, so two commands said together have two jobs deciding at
 * once; under the lock the second sees the first one's ▶ and answers instead
 * of running too. The token's user is asked only when the lock is found held.
 */
export function payloadTargetLock(gitlab: BridgeGitLab, logger: Logger): TargetLock | undefined {
  return createTargetLock(gitlab, {
    selfId: async () => (await gitlab.currentUser()).id,
    onReleaseError: (error) =>
      logger.warn('lock award not removed; it goes stale', {
        error: describeError(error).message,
      }),
  });
}

/**
 * The notes a run command's job reads to answer "joined" or "a follow-up is
 * queued": read under the lock, once, not taken from the job's early
 * listing. A run's closing read holds the same lock, so a listing made after
 * it shows the run's final note, and the instruction is not handed to a run
 * that no longer listens. A job that finds no running run never reads them.
 */
export function notesReadUnderLock(gitlab: BridgeGitLab): Pick<BridgeGitLab, 'listNotes'> {
  let read: Promise<Note[]> | undefined;
  return {
    listNotes: (projectId, target) => (read ??= gitlab.listNotes(projectId, target)),
  };
}
