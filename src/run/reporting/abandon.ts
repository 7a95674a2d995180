import type { StatePaths } from '../../history/paths.ts';
import type { RunRecords } from '../../history/run-records.ts';
import type { Logger } from '../../log/logger.ts';
import type { Redactor } from '../../log/redact.ts';
import type { CancelCause, FinalState } from '../../core/progress/model.ts';
import { markGaveUpAfterGrace, setCancelCause } from '../../core/progress/updates.ts';
import type { ProgressPublisher } from '../../report/progress/publisher.ts';
import { buildRunResult, writeResultFile } from '../../report/result-file.ts';
import { systemClock, type Clock } from '../../core/clock.ts';

export interface AbandonInput {
  paths: StatePaths;
  runRecords: RunRecords;
  publisher: ProgressPublisher;
  runId: string;
  taskId: string;
  startedAt: number;
  jobId?: string | undefined;
  pipelineId?: string | undefined;
  clock: Clock;
  redactor: Redactor;
  logger: Logger;
}

export interface AbandonedEnd {
  state: FinalState;
  summary: string;
  exitCode: number;
  /** A cancelled run: who or what stopped it, when known. */
  cancelCause?: CancelCause;
  /** The run did not stop within its grace period after the signal. */
  afterGrace?: boolean;
}

/**
 * The end of a run that could not write it itself — it failed around the
 * pipeline, or did not stop within its grace period after a signal:
 * runs.json and result.json first (files in the job's folder, always
 * written), then the note's final state, waited for at most `noteMs`
 * (wall-clock, whatever GitLab does).
 */
export async function abandonRun(
  input: AbandonInput,
  end: AbandonedEnd,
  noteMs: number,
): Promise<void> {
  const { logger } = input;
  const attempt = async (what: string, work: () => Promise<unknown>) => {
    try {
      await work();
    } catch (error) {
      logger.error('final state not written', { what, error: (error as Error).message });
    }
  };
  const summary = end.summary.slice(0, 500);
  await attempt('runs.json', () => input.runRecords.finish(input.runId, end.state, summary));
  await attempt('result.json', () =>
    writeResultFile(
      input.paths.result,
      buildRunResult({
        taskId: input.taskId,
        status: end.state,
        exitCode: end.exitCode,
        summary: end.summary,
        startedAt: input.startedAt,
        finishedAt: input.clock.now(),
        validation: [],
        usage: { byRole: {} },
        ...(input.jobId ? { jobId: input.jobId } : {}),
        ...(input.pipelineId ? { pipelineId: input.pipelineId } : {}),
      }),
      input.redactor,
    ),
  );
  const cause = end.cancelCause;
  if (cause) input.publisher.update((s) => setCancelCause(s, cause));
  if (end.afterGrace) input.publisher.update(markGaveUpAfterGrace);
  const stop = new AbortController();
  const written = await Promise.race([
    input.publisher.finish({ state: end.state, summary: end.summary }),
    systemClock.sleep(noteMs, stop.signal).then(
      () => false,
      () => false,
    ),
  ]);
  stop.abort();
  if (!written) logger.error('progress note final state not written', { state: end.state });
}
