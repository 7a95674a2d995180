import { gather } from '../phases/gather/index.ts';
import { requestText } from '../phases/gather/render.ts';
import type { TaskSpec } from '../task/task-yaml.ts';
import type { RunContext, RunDeps } from '../core/run-context.ts';
import { createRunContext } from './context.ts';
import { deliveryPhase } from '../phases/deliver/phase.ts';
import { environmentPhase } from '../phases/environment/phase.ts';
import { executionPhase } from '../phases/execute/step.ts';
import { endFromError, finish } from './finish.ts';
import type { RunOutcome } from '../core/outcome.ts';
import { inPhase } from '../core/phase-scope.ts';
import { planningPhase } from '../phases/plan/step.ts';
import type { RunEnd } from '../core/run-end.ts';
import { verificationPhase } from '../phases/verify/step.ts';

export interface RunInput {
  task: TaskSpec;
  repoDir: string;
  maxLoops: number;
}

/** gather → plan. Undefined when the plan is ready; an end when the run stops during planning. */
export async function planStage(ctx: RunContext): Promise<RunEnd | undefined> {
  ctx.fsm.to('PLANNING', 'task started');
  ctx.state.gathered = await inPhase(ctx, 'pre_planning', () => gather(ctx));
  ctx.toolContext.requestText = requestText(ctx.state.gathered);

  const planned = await inPhase(ctx, 'planning', () => planningPhase(ctx));
  return planned.kind === 'end' ? planned.end : undefined;
}

/** environment → (execute ⇄ reflect → verify)*, from a plan made by `planStage` (or handed over). */
export async function workStage(ctx: RunContext): Promise<RunEnd> {
  await environmentPhase(ctx);
  ctx.fsm.to('RUNNING', 'plan ready');

  for (;;) {
    const executed = await inPhase(ctx, 'execution', () => executionPhase(ctx));
    if (executed.kind === 'end') return executed.end;

    ctx.fsm.to('VALIDATING', 'planned actions done');
    const verified = await inPhase(ctx, 'verification', () => verificationPhase(ctx));
    if (verified.kind === 'end') return verified.end;
    if (verified.kind === 'complete') {
      await deliveryPhase(ctx);
      ctx.fsm.to('COMPLETE', 'all criteria satisfied');
      return { state: 'COMPLETE', reason: 'completed', summary: ctx.state.assessment!.summary };
    }
    ctx.fsm.to('RUNNING', 'criteria still open');
  }
}

/**
 * The pipeline, in the order of GUIDE.md:
 * gather → plan → environment → (execute ⇄ reflect → verify)* → deliver → finish,
 * driving the task state machine PENDING → PLANNING → RUNNING → VALIDATING
 * → RUNNING | COMPLETE | FAILED. The CI component's two-step flow (B2) runs
 * the two stages in two jobs (src/ci/two-step.ts).
 */
async function pipeline(ctx: RunContext): Promise<RunEnd> {
  return (await planStage(ctx)) ?? workStage(ctx);
}

/** Runs one task end to end. Never throws for run failures: they are in the outcome. */
export async function runTask(deps: RunDeps, input: RunInput): Promise<RunOutcome> {
  const ctx = await createRunContext(deps, input.task, input);
  ctx.logger.info('run started', {
    repo: ctx.repoDir,
    title: input.task.title,
    maxLoops: input.maxLoops,
    strategy: ctx.config.planning.strategy,
  });
  let end: RunEnd;
  try {
    end = await pipeline(ctx);
  } catch (error) {
    end = endFromError(ctx, error);
  }
  return finish(ctx, end);
}
