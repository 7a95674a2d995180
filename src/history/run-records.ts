/**
 * Run records: each run writes "started" at its beginning and its
 * final state at the end. The next run — in the same folder, or in a later
 * pipeline after the artifact was restored — finds a record that never
 * finished and reports that run as interrupted (killed, timed out, runner lost).
 */
import { t } from '../messages/catalog.ts';
import { formatDateTime } from '../messages/format.ts';
import type { Language } from '../messages/language.ts';
import * as z from 'zod';
import type { Logger } from '../log/logger.ts';
import type { Clock } from '../core/clock.ts';
import { systemClock } from '../core/clock.ts';
import { FINAL_STATES } from '../core/progress/model.ts';
import { JsonFile } from './json-file.ts';

/** A run record's state: running, or how the run ended. */
export const RUN_STATES = ['running', ...FINAL_STATES] as const;
export type RunState = (typeof RUN_STATES)[number];

export const RunRecord = z.object({
  run_id: z.string().min(1),
  task_id: z.string(),
  issue_id: z.string().optional(),
  job_id: z.string().optional(),
  pipeline_id: z.string().optional(),
  started_at: z.iso.datetime(),
  finished_at: z.iso.datetime().nullable(),
  state: z.enum(RUN_STATES),
  summary: z.string().optional(),
  /** When a later run found this one unfinished. */
  interrupted_detected_at: z.iso.datetime().optional(),
});
export type RunRecord = z.infer<typeof RunRecord>;

export const RunRecordsFile = z.object({ schema_version: z.literal(1), runs: z.array(RunRecord) });
export type RunRecordsFile = z.infer<typeof RunRecordsFile>;

export interface RunStart {
  runId: string;
  taskId: string;
  issueId?: string;
  jobId?: string;
  pipelineId?: string;
}

export interface RunRecordsOptions {
  file: string;
  logger: Logger;
  clock?: Clock;
  /** Records kept (oldest dropped first), default 50. */
  keep?: number;
}

export class RunRecords {
  private readonly doc: JsonFile<RunRecordsFile>;
  private readonly clock: Clock;

  constructor(private readonly options: RunRecordsOptions) {
    this.clock = options.clock ?? systemClock;
    this.doc = new JsonFile(
      options.file,
      RunRecordsFile,
      () => ({ schema_version: 1, runs: [] }),
      options.logger,
    );
  }

  private now(): string {
    return new Date(this.clock.now()).toISOString();
  }

  /**
   * Records the start of a run. Earlier runs still marked `running` never
   * finished: they become `interrupted` and are returned so the caller can
   * say so in the progress note.
   */
  async begin(run: RunStart): Promise<{ interrupted: RunRecord[] }> {
    const at = this.now();
    const interrupted: RunRecord[] = [];
    await this.doc.update((doc) => {
      const runs = doc.runs.map((r) => {
        if (r.state !== 'running' || r.run_id === run.runId) return r;
        const marked: RunRecord = { ...r, state: 'interrupted', interrupted_detected_at: at };
        interrupted.push(marked);
        return marked;
      });
      const record: RunRecord = {
        run_id: run.runId,
        task_id: run.taskId,
        ...(run.issueId === undefined ? {} : { issue_id: run.issueId }),
        ...(run.jobId === undefined ? {} : { job_id: run.jobId }),
        ...(run.pipelineId === undefined ? {} : { pipeline_id: run.pipelineId }),
        started_at: at,
        finished_at: null,
        state: 'running',
      };
      const kept = [...runs.filter((r) => r.run_id !== run.runId), record].slice(
        -(this.options.keep ?? 50),
      );
      return { ...doc, runs: kept };
    });
    if (interrupted.length > 0) {
      this.options.logger.warn('earlier run never finished', {
        runs: interrupted.map((r) => r.run_id),
      });
    }
    return { interrupted };
  }

  /** Records how a run ended. */
  async finish(
    runId: string,
    state: Exclude<RunState, 'running'>,
    summary?: string,
  ): Promise<void> {
    const at = this.now();
    await this.doc.update((doc) => ({
      ...doc,
      runs: doc.runs.map((r) =>
        r.run_id === runId
          ? { ...r, state, finished_at: at, ...(summary === undefined ? {} : { summary }) }
          : r,
      ),
    }));
  }

  async list(): Promise<RunRecord[]> {
    return (await this.doc.read()).runs;
  }

  /** The most recent run (for `/agent status`). */
  async last(): Promise<RunRecord | undefined> {
    return (await this.list()).at(-1);
  }
}

/** The notice shown in the progress note for runs found interrupted, in the note's language. */
export function interruptedNotice(
  runs: readonly RunRecord[],
  language: Language = 'en',
): string | undefined {
  if (runs.length === 0) return undefined;
  const started = (r: RunRecord) => {
    const at = Date.parse(r.started_at);
    return Number.isNaN(at) ? r.started_at : formatDateTime(at, language);
  };
  const described = runs.map((r) =>
    r.job_id
      ? t(language, 'notice.interruptedJob', { job: r.job_id, time: started(r) })
      : t(language, 'notice.interruptedRun', { run: r.run_id, time: started(r) }),
  );
  return t(language, 'notice.interrupted', {
    count: runs.length,
    runs: described.join(t(language, 'punct.comma')),
  });
}
