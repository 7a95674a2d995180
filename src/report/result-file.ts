/**
 * `.mr-agent/result.json` (SPEC L3): the machine-readable result of a run,
 * kept as a job artifact. The zod schema is the contract; the file is
 * validated before it is written and when it is read.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { writeFileAtomic } from '../history/atomic.ts';
import type { Logger } from '../log/logger.ts';
import type { Redactor } from '../log/redact.ts';
import { FINAL_STATES, type FinalState, type UsageSummary } from '../core/progress.ts';

/** One check command the run ran, for result.json. */
export interface ValidationRun {
  command: string;
  /** Null when the command did not exit on its own (timeout, signal). */
  exitCode: number | null;
  durationMs: number;
  timedOut?: boolean;
}

const Count = z.number().int().min(0);

export const RunResultFile = z.object({
  schema_version: z.literal(1),
  task_id: z.string().min(1),
  status: z.enum(FINAL_STATES),
  exit_code: z.number().int().min(0),
  summary: z.string(),
  started_at: z.iso.datetime(),
  finished_at: z.iso.datetime(),
  duration_ms: Count,
  validation: z.array(
    z.object({
      command: z.string(),
      exit_code: z.number().int().nullable(),
      duration_ms: z.number().min(0),
      timed_out: z.boolean(),
      passed: z.boolean(),
    }),
  ),
  tokens: z.object({
    prompt: Count,
    completion: Count,
    total: Count,
    by_role: z.record(z.string(), z.object({ prompt: Count, completion: Count, calls: Count })),
  }),
  cost_usd: z.number().min(0).nullable(),
  trace_id: z.string().optional(),
  job_id: z.string().optional(),
  pipeline_id: z.string().optional(),
  /** Path of the Task Note, relative to the repository. */
  task_note: z.string().optional(),
});
export type RunResultFile = z.infer<typeof RunResultFile>;

export interface RunResultInput {
  taskId: string;
  status: FinalState;
  exitCode: number;
  summary: string;
  startedAt: number;
  finishedAt: number;
  validation: readonly ValidationRun[];
  usage: UsageSummary;
  traceId?: string;
  jobId?: string;
  pipelineId?: string;
  taskNote?: string;
}

export function buildRunResult(input: RunResultInput): RunResultFile {
  const byRole = Object.fromEntries(
    Object.entries(input.usage.byRole).map(([role, u]) => [
      role,
      { prompt: u.promptTokens, completion: u.completionTokens, calls: u.calls },
    ]),
  );
  const prompt = Object.values(byRole).reduce((sum, u) => sum + u.prompt, 0);
  const completion = Object.values(byRole).reduce((sum, u) => sum + u.completion, 0);
  return RunResultFile.parse({
    schema_version: 1,
    task_id: input.taskId,
    status: input.status,
    exit_code: input.exitCode,
    summary: input.summary,
    started_at: new Date(input.startedAt).toISOString(),
    finished_at: new Date(input.finishedAt).toISOString(),
    duration_ms: Math.max(0, Math.round(input.finishedAt - input.startedAt)),
    validation: input.validation.map((v) => ({
      command: v.command,
      exit_code: v.exitCode,
      duration_ms: Math.max(0, Math.round(v.durationMs)),
      timed_out: v.timedOut ?? false,
      passed: v.exitCode === 0 && !v.timedOut,
    })),
    tokens: { prompt, completion, total: prompt + completion, by_role: byRole },
    cost_usd: input.usage.costUsd ?? null,
    trace_id: input.traceId,
    job_id: input.jobId,
    pipeline_id: input.pipelineId,
    task_note: input.taskNote,
  });
}

/** Validates, redacts and writes the result file atomically. */
export async function writeResultFile(
  file: string,
  result: RunResultFile,
  redactor: Redactor,
): Promise<void> {
  const valid = RunResultFile.parse(result);
  await writeFileAtomic(file, `${redactor.redact(JSON.stringify(valid, null, 2))}\n`);
}

/** Reads a result file; undefined when it is missing or invalid (logged). */
export async function readResultFile(
  file: string,
  logger: Logger,
): Promise<RunResultFile | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const parsed = RunResultFile.safeParse(JSON.parse(text));
    if (parsed.success) return parsed.data;
    logger.warn('result file invalid', { file, error: parsed.error.message });
  } catch (error) {
    logger.warn('result file is not JSON', { file, error: (error as Error).message });
  }
  return undefined;
}
