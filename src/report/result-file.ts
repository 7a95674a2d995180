import type { BudgetSpend } from '../core/budget.ts';
/**
 * `.mr-agent/result.json`: the machine-readable result of a run,
 * kept as a job artifact. The zod schema is the contract; the file is
 * validated before it is written and when it is read.
 */
import { readFile } from 'node:fs/promises';
import * as z from 'zod';
import { writeFileAtomic } from '../history/atomic.ts';
import type { Logger } from '../log/logger.ts';
import type { Redactor } from '../log/redact.ts';
import { FINAL_STATES, type FinalState, type UsageSummary } from '../core/progress/model.ts';

/** One check command the run ran, for result.json. */
export interface ValidationRun {
  command: string;
  /** Null when the command did not exit on its own (timeout, signal). */
  exitCode: number | null;
  durationMs: number;
  timedOut?: boolean;
}

const Count = z.number().int().min(0);

/** `status`: did the run do what was asked. */
export const RESULT_STATUSES = ['succeeded', 'failed'] as const;
export type ResultStatus = (typeof RESULT_STATUSES)[number];

/** `validation.overall`: how the checks went, `unknown` when none ran. */
export const VALIDATION_OVERALL = ['passed', 'failed', 'unknown'] as const;
export type ValidationOverall = (typeof VALIDATION_OVERALL)[number];

const ValidationCommand = z
  .object({
    command: z.string().describe('The validation command as it ran.'),
    exit_code: z
      .number()
      .int()
      .nullable()
      .describe('Its exit code; null when it was stopped (timed out).'),
    duration_ms: z.number().min(0).describe('How long it ran, in milliseconds.'),
    timed_out: z.boolean().describe('Whether it was stopped at its time limit.'),
    passed: z.boolean().describe('exit_code 0 and not timed out.'),
  })
  .describe(
    'One run of a validation command; a command that ran in several loops is listed once per run.',
  );

const RoleTokens = z.object({ prompt: Count, completion: Count, calls: Count });

/**
 * The file's shape. The task format fixes `task_id`, `status`, `summary`,
 * `validation {overall, commands[{command, exit_code, duration_ms}]}` and
 * `duration_ms`; the other fields are mr-agent's own. `docs/result.schema.json`
 * is generated from this schema (`npm run docs`).
 */
export const RunResultFile = z
  .object({
    schema_version: z
      .literal(2)
      .describe('Version of this shape; 2 since status and validation follow the task format.'),
    task_id: z.string().min(1).describe("The task id (Task YAML task.id, or the job's task)."),
    status: z
      .enum(RESULT_STATUSES)
      .describe('succeeded when the run completed; failed for every other end (see state).'),
    state: z
      .enum(FINAL_STATES)
      .describe(
        'How the run ended in detail: complete, failed, cancelled, interrupted, awaiting_answer, needs_human, paused or budget_exhausted (stopped before a model call would pass budget.*).',
      ),
    exit_code: z.number().int().min(0).describe('The exit code of the mr-agent process.'),
    summary: z.string().describe('What the run did, or why it stopped.'),
    started_at: z.iso.datetime().describe('Start of the run (UTC).'),
    finished_at: z.iso.datetime().describe('End of the run (UTC).'),
    duration_ms: Count.describe('finished_at − started_at in milliseconds.'),
    validation: z
      .object({
        overall: z
          .enum(VALIDATION_OVERALL)
          .describe(
            'passed when the last run of every command passed, failed when one did not, unknown when no command ran.',
          ),
        commands: z.array(ValidationCommand),
      })
      .describe('The validation (test) commands the run executed.'),
    tokens: z
      .object({
        prompt: Count,
        completion: Count,
        total: Count,
        by_role: z
          .record(z.string(), RoleTokens)
          .describe('Per model call purpose (planning, execution, reflection, review, …).'),
      })
      .describe('LLM tokens of the run.'),
    cost_usd: z
      .number()
      .min(0)
      .nullable()
      .describe('Estimated cost in USD from llm.price.*; null when no prices are set.'),
    budget: z
      .object({
        exhausted: z
          .boolean()
          .describe('Whether the run stopped before a model call would pass a limit.'),
        stopped_by: z
          .enum(['max_usd', 'max_tokens', 'mr_max_usd'])
          .optional()
          .describe('The budget.* key the run stopped at.'),
        spent_tokens: Count.describe('Prompt and completion tokens the budget counted.'),
        spent_usd: z.number().min(0).describe('USD the budget counted (0 without prices).'),
        limit_usd: z.number().positive().optional().describe('budget.max_usd.'),
        limit_tokens: z.number().int().positive().optional().describe('budget.max_tokens.'),
        mr_limit_usd: z.number().positive().optional().describe('budget.mr_max_usd.'),
        mr_spent_usd: z
          .number()
          .min(0)
          .optional()
          .describe('USD all runs on the merge request or issue spent, this one included.'),
      })
      .optional()
      .describe('The run against its budget; absent when no budget.* is set.'),
    trace_id: z.string().optional().describe("The trace id of the run's log lines."),
    job_id: z.string().optional().describe('The CI job that ran it.'),
    pipeline_id: z.string().optional().describe('The CI pipeline that ran it.'),
    task_note: z.string().optional().describe('Path of the Task Note, relative to the repository.'),
  })
  .describe('The machine-readable result of one mr-agent run (.mr-agent/result.json).');
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
  budget?: BudgetSpend;
  traceId?: string;
  jobId?: string;
  pipelineId?: string;
  taskNote?: string;
}

type Command = RunResultFile['validation']['commands'][number];

/** The last run of each command decides: a failure fixed in a later loop counts as passed. */
export function overallOf(commands: readonly Command[]): ValidationOverall {
  if (commands.length === 0) return 'unknown';
  const last = new Map(commands.map((c) => [c.command, c.passed]));
  return [...last.values()].every(Boolean) ? 'passed' : 'failed';
}

function commandsOf(validation: readonly ValidationRun[]): Command[] {
  return validation.map((v) => ({
    command: v.command,
    exit_code: v.exitCode,
    duration_ms: Math.max(0, Math.round(v.durationMs)),
    timed_out: v.timedOut ?? false,
    passed: v.exitCode === 0 && !v.timedOut,
  }));
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
  const commands = commandsOf(input.validation);
  return RunResultFile.parse({
    schema_version: 2,
    task_id: input.taskId,
    status: input.status === 'complete' ? 'succeeded' : 'failed',
    state: input.status,
    exit_code: input.exitCode,
    summary: input.summary,
    started_at: new Date(input.startedAt).toISOString(),
    finished_at: new Date(input.finishedAt).toISOString(),
    duration_ms: Math.max(0, Math.round(input.finishedAt - input.startedAt)),
    validation: { overall: overallOf(commands), commands },
    tokens: { prompt, completion, total: prompt + completion, by_role: byRole },
    cost_usd: input.usage.costUsd ?? null,
    ...(input.budget ? { budget: budgetOf(input.budget) } : {}),
    trace_id: input.traceId,
    job_id: input.jobId,
    pipeline_id: input.pipelineId,
    task_note: input.taskNote,
  });
}

function budgetOf(b: BudgetSpend): NonNullable<RunResultFile['budget']> {
  return {
    exhausted: b.stoppedBy !== undefined,
    ...(b.stoppedBy ? { stopped_by: b.stoppedBy } : {}),
    spent_tokens: b.spentTokens,
    spent_usd: b.spentUsd,
    ...(b.limitUsd !== undefined ? { limit_usd: b.limitUsd } : {}),
    ...(b.limitTokens !== undefined ? { limit_tokens: b.limitTokens } : {}),
    ...(b.mrLimitUsd !== undefined ? { mr_limit_usd: b.mrLimitUsd } : {}),
    ...(b.mrSpentUsd !== undefined ? { mr_spent_usd: b.mrSpentUsd } : {}),
  };
}

/**
 * The JSON Schema of result.json (draft 2020-12), generated from the zod
 * schema above: `npm run docs` writes it to `docs/result.schema.json`.
 */
export function resultJsonSchema(): Record<string, unknown> {
  const { $schema, ...rest } = z.toJSONSchema(RunResultFile, { io: 'output' });
  return { $schema, title: 'mr-agent result.json', ...rest };
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
