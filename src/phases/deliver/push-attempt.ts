import { CommandFailedError } from '../../errors/errors.ts';
import type { Git } from './git.ts';
import { pushWithOneRebase } from './push.ts';
import { stopIfCancelled, type DeliveryInput } from './types.ts';

/** A push that landed, or why git could not push. */
export type PushAttempt = { pushed: { commit: string; rebased: boolean } } | { refused: string };

/**
 * Pushes the commit to `branch` of `remoteUrl` (one rebase on a rejected
 * push), unless the run was cancelled or `refusal` says why the branch must
 * not be pushed to. A push git could not make is an answer, not an error:
 * the caller delivers the change elsewhere.
 */
export async function attemptPush(
  input: DeliveryInput,
  git: Git,
  remoteUrl: string,
  branch: string,
  refusal?: string,
): Promise<PushAttempt> {
  if (refusal !== undefined) return { refused: refusal };
  stopIfCancelled(input);
  try {
    return {
      pushed: await pushWithOneRebase(git, remoteUrl, branch, input.redactor, input.signal),
    };
  } catch (error) {
    if (!(error instanceof CommandFailedError)) throw error;
    return { refused: error.message };
  }
}
