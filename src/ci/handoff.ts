import { readFile } from 'node:fs/promises';
import path from 'node:path';
import * as z from 'zod';
import { ENVIRONMENTS } from '../config/options.ts';
import { ConfigError } from '../errors/errors.ts';
import { writeFileAtomic } from '../history/atomic.ts';
import { Plan } from '../core/plan.ts';
import { LANGUAGES } from '../messages/language.ts';
import { CiRequest } from './request.ts';

/**
 * What the plan job of the two-step flow leaves for the run job of the
 * child pipeline, next to the rest of `.mr-agent/` in its artifacts: the
 * request, the chosen environment, the task and run ids, the progress note,
 * and what the run gathered and planned.
 */
export const HANDOFF_FILE = '.mr-agent/ci-handoff.json';

/** `EarlierPlan` (src/core/ports.ts) as the hand-off carries it. */
const EarlierPlanShape = z.object({
  taskId: z.string().min(1),
  plan: z.unknown(),
  at: z.string(),
  revisions: z
    .array(z.object({ revision: z.number(), reason: z.string(), at: z.string() }))
    .readonly(),
  reflections: z
    .array(
      z.object({
        at: z.string(),
        status: z.string(),
        evaluation: z.string(),
        issues: z.array(z.string()).readonly(),
        revisionNeeded: z.boolean(),
      }),
    )
    .readonly(),
  revisionPending: z.boolean(),
  completed: z.boolean(),
});

export const CiHandoff = z.object({
  version: z.literal(1),
  request: CiRequest,
  environment: z.enum(ENVIRONMENTS),
  /** The plan job. */
  from: z.object({
    pipelineId: z.number().int(),
    jobId: z.number().int(),
    jobUrl: z.string().optional(),
  }),
  /** The run continues under the same task and run ids (one history, one run record). */
  task: z.object({ id: z.string().min(1), text: z.string() }),
  runId: z.string().min(1),
  /** The progress note the run job keeps editing (one progress note per run). */
  noteId: z.string().optional(),
  /** The notes' language the plan job decided: the run job writes in it too. */
  language: z.enum(LANGUAGES).optional(),
  /**
   * What the plan job gathered (its shape belongs to src/phases/gather/), the
   * plan, and the earlier plan it took over (a retry or resume reuses it) with its revisions
   * and reflections.
   */
  work: z.object({
    gathered: z.unknown().optional(),
    plan: Plan,
    reusedPlan: EarlierPlanShape.optional(),
  }),
});
export type CiHandoff = z.infer<typeof CiHandoff>;

/** Writes the hand-off atomically (history/atomic.ts). */
export async function writeHandoff(projectDir: string, handoff: CiHandoff): Promise<string> {
  const file = path.join(projectDir, HANDOFF_FILE);
  await writeFileAtomic(file, `${JSON.stringify(CiHandoff.parse(handoff), null, 2)}\n`);
  return file;
}

/** Reads the plan job's hand-off; says plainly when the artifact is missing or broken. */
export async function readHandoff(projectDir: string): Promise<CiHandoff> {
  const file = path.join(projectDir, HANDOFF_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new ConfigError('the plan job left no hand-off for this run job', {
      where: HANDOFF_FILE,
      hint: "the run step belongs to the child pipeline started by the plan job (`mr-agent ci --step plan`); it needs that job's artifacts (`needs: pipeline: $PARENT_PIPELINE_ID`).",
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`the hand-off is not JSON: ${(error as Error).message}`, {
      where: HANDOFF_FILE,
    });
  }
  const parsed = CiHandoff.safeParse(json);
  if (!parsed.success) {
    throw new ConfigError('the hand-off does not have the expected shape', {
      where: HANDOFF_FILE,
      problems: parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`),
    });
  }
  return parsed.data;
}
