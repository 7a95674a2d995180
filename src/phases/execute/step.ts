import { CancelledError } from '../../errors/errors.ts';
import { progressDigest } from '../../core/progress/digest.ts';
import { executeAction } from './index.ts';
import { pauseEnd } from './pause.ts';
import { saveCheckpoint } from './checkpoint.ts';
import { hear, heed } from '../converse/index.ts';
import { executeWithWorker } from './worker.ts';
import type { PlanStep } from '../../core/plan-steps.ts';
import { reflectionTrigger } from '../reflect/index.ts';
import type { RunContext } from '../../core/run-context.ts';
import { markItem, requeue } from '../plan/state.ts';
import { directiveEnd, replanAllowed, replanDuringRun } from '../plan/step.ts';
import type { ActionRecord } from '../../core/records.ts';
import { reflectAndRevise, reviseAfterReview } from '../reflect/step.ts';
import { reviewGate } from '../review/gate.ts';
import { runView } from '../../core/run-view.ts';
import { CONTINUE, endWith, type StepResult } from '../../core/run-end.ts';

function throwIfCancelled(ctx: RunContext): void {
  if (ctx.signal?.aborted) throw new CancelledError('the run was cancelled');
}

async function runOne(ctx: RunContext, step: PlanStep): Promise<ActionRecord> {
  markItem(ctx, step.key, 'running');
  const worker = ctx.deps.worker;
  const record = worker
    ? await executeWithWorker(ctx, step, worker)
    : await executeAction(ctx, step);
  ctx.state.actions.push(record);
  ctx.state.actionCount += 1;
  markItem(ctx, step.key, record.status === 'success' ? 'done' : 'failed');
  ctx.logger.info('action finished', {
    key: step.key,
    task: step.action.task_id,
    status: record.status,
    turns: record.turns,
    toolCalls: record.toolCalls.length,
  });
  await ctx.deps.history.saveExecution({
    action_id: record.key,
    status: record.status === 'success' ? 'success' : 'error',
    summary: `${record.action.task_id}: ${record.summary}`,
    tool: record.action.tool,
    duration_ms: record.finishedAt - record.startedAt,
  });
  await saveCheckpoint(ctx);
  return record;
}

/** The replan checkpoint after each action; `replanned` skips reflection. */
async function afterAction(
  ctx: RunContext,
  step: PlanStep,
  record: ActionRecord,
): Promise<StepResult & { replanned?: boolean }> {
  const directive = await ctx.hooks.replan.decide(
    {
      point: 'execution',
      plan: ctx.state.plan!,
      action: record,
      remaining: ctx.state.queue,
      run: runView(ctx),
    },
    ctx.signal,
  );
  const end = directiveEnd(directive);
  if (end) return endWith(end);
  if (directive.kind === 'retry_action' && replanAllowed(ctx)) {
    ctx.state.replans += 1;
    requeue(ctx, step);
    return { ...CONTINUE, replanned: true };
  }
  if (directive.kind === 'replan' && replanAllowed(ctx)) {
    const result = await replanDuringRun(ctx, directive.reason, directive.from, directive.summary);
    return { ...result, replanned: true };
  }
  return CONTINUE;
}

/** Executes the queue; reflection on error and at the interval. */
async function executeQueue(ctx: RunContext): Promise<StepResult> {
  while (ctx.state.queue.length > 0) {
    throwIfCancelled(ctx);
    const paused = await pauseEnd(ctx);
    if (paused) return endWith(paused);
    const step = ctx.state.queue.shift()!;
    const record = await runOne(ctx, step);
    const after = await afterAction(ctx, step, record);
    if (after.kind === 'end') return after;
    const trigger = after.replanned
      ? undefined
      : reflectionTrigger(ctx.config, record, ctx.state.actionCount);
    // comments heard here ride on this checkpoint's reflection instead of a separate one
    const heard = await hear(ctx, trigger ? 'reflection' : 'action');
    if (heard.length > 0) {
      const heeded = await heed(ctx, heard, after.replanned ? undefined : record);
      if (heeded.kind === 'end') return heeded;
      continue;
    }
    if (!trigger) continue;
    const reflected = await reflectAndRevise(ctx, { trigger, record }, { countsAsRevision: true });
    if (reflected.kind === 'end') return reflected;
  }
  return CONTINUE;
}

function executionSubject(ctx: RunContext): string {
  const { state } = ctx;
  return progressDigest({ actions: state.actions, upcoming: [], changedFiles: state.changedFiles });
}

/**
 * The execution phase: run the queue, then the execution review → revise
 * cycle; a FAIL becomes new actions through a reflection.
 */
export async function executionPhase(ctx: RunContext): Promise<StepResult> {
  for (let attempt = 0; ; attempt++) {
    const executed = await executeQueue(ctx);
    if (executed.kind === 'end') return executed;
    const gate = await reviewGate(ctx, 'execution', attempt, executionSubject(ctx));
    if (gate.kind === 'pass') return CONTINUE;
    if (gate.kind === 'end') return endWith(gate.end);
    const revised = await reviseAfterReview(ctx, gate.feedback);
    if (revised.kind === 'end') return revised;
  }
}
