import { randomUUID } from 'node:crypto';

/** A trace id per run; includes the CI pipeline and job ids when present. */
export function newTraceId(
  ci: { pipelineId?: string | undefined; jobId?: string | undefined } = {},
): string {
  const random = randomUUID().slice(0, 8);
  const parts = [ci.pipelineId && `p${ci.pipelineId}`, ci.jobId && `j${ci.jobId}`, random];
  return parts.filter(Boolean).join('-');
}
