/**
 * A trace id per run; includes the CI pipeline and job ids when present. Its
 * random part only tells two runs of one job apart in the logs, so it needs no
 * cryptographic source: Node's crypto module costs every job a few
 * milliseconds to load before its first note.
 */
export function newTraceId(
  ci: { pipelineId?: string | undefined; jobId?: string | undefined } = {},
): string {
  const random = Math.floor(Math.random() * 0x100000000)
    .toString(16)
    .padStart(8, '0');
  const parts = [ci.pipelineId && `p${ci.pipelineId}`, ci.jobId && `j${ci.jobId}`, random];
  return parts.filter(Boolean).join('-');
}
