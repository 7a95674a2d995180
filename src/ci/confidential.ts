import { ConfigError, isAgentError } from '../errors/errors.ts';
import type { JobReads } from '../gitlab/job-reads.ts';
import type { CiRequest } from './request.ts';

/**
 * Everything a run writes — notes, commits, a merge request, the job's
 * artifacts — is public, so a run on a confidential issue is refused before
 * the issue's text is used anywhere. The refusal names the issue only by its
 * number, and the requester hears of it in an internal note.
 */
export class ConfidentialTargetError extends ConfigError {}

/** Whether a job's failure is the refusal of a confidential target (its note must be internal). */
export function isConfidentialTarget(error: unknown): boolean {
  return (
    error instanceof ConfidentialTargetError ||
    (isAgentError(error) && error.name === 'ConfidentialTargetError')
  );
}

/** Throws when the request's target is a confidential issue. */
export async function refuseConfidentialTarget(request: CiRequest, reads: JobReads): Promise<void> {
  const target = request.target;
  if (target.kind !== 'issue') return;
  const issue = await reads.issue(target.iid);
  if (!issue.confidential) return;
  throw new ConfidentialTargetError(
    `issue #${target.iid} is confidential: mr-agent does not read it, because everything it writes is public`,
    { hintKey: 'hint.confidentialIssue' },
  );
}
