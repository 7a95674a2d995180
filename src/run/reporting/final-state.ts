import { ExternalServiceError } from '../../errors/errors.ts';
import type { FinalState } from '../../core/progress/model.ts';

/**
 * The progress note could not be given its final state (GitLab refused or
 * never answered every write): the requester still sees "running", so the
 * job must not look successful. The run's files are written all the same.
 */
export class FinalStateNotWritten extends ExternalServiceError {
  constructor(readonly state: FinalState) {
    super('GitLab', `the progress note's final state (${state}) could not be written`, {
      hint: 'The run itself is recorded in .mr-agent/result.json and the Task Note (job artifacts); check that GitLab accepts notes from the token.',
    });
  }
}

export function isFinalStateNotWritten(error: unknown): error is FinalStateNotWritten {
  return error instanceof FinalStateNotWritten;
}
