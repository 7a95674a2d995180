import { planTask, type PlanInput } from './index.ts';
import type { Plan } from '../../core/plan.ts';
import type { RunContext } from '../../core/run-context.ts';
import type { ReplanDirective, ReplanFrom } from '../../core/hooks.ts';
import { adoptPlan } from './state.ts';
import { adoptEarlierPlan, reusablePlan } from './reuse.ts';
import type { PlanChange } from '../../core/progress/reports.ts';
import { reviewGate } from '../review/gate.ts';
import { CONTINUE, endWith, type RunEnd, type StepResult } from '../../core/run-end.ts';
import { runView } from '../../core/run-view.ts';

const PLANNING_POINTS = ['goal_understanding', 'task_decomposition', 'action_sequence'] as const;

type Planned = { kind: 'plan'; plan: Plan } | { kind: 'end'; end: RunEnd };

/** Ends for replan directives that stop the run (clarify, stop). */
export function directiveEnd(directive: ReplanDirective): RunEnd | undefined {
  if (directive.kind === 'clarify')
    return {
      state: 'FAILED',
      reason: 'clarification_needed',
      summary: `Questions for the people on the request: ${directive.questions.join(' ')}`,
      clarification: {
        type: 'unclear_goal',
        message: 'The agent needs answers before it can go on.',
        clarification_needed: directive.questions,
      },
      ...(directive.posted ? { clarificationPosted: true } : {}),
    };
  if (directive.kind === 'stop')
    return { state: 'FAILED', reason: 'stopped', summary: directive.reason };
  return undefined;
}

/** True while the replan hook may still ask for another replan (max_total_replans). */
export function replanAllowed(ctx: RunContext): boolean {
  const max = ctx.config.planning.replanning.global.max_total_replans;
  if (ctx.state.replans < max) return true;
  ctx.logger.warn('replan limit reached; keeping the plan', { replans: ctx.state.replans, max });
  return false;
}

/** One planning call, then the replan checkpoints of the three planning sub-phases (docs/replanning.md). */
async function planWithCheckpoints(ctx: RunContext, input: PlanInput): Promise<Planned> {
  let feedback = input.feedback;
  for (;;) {
    const result = await planTask(ctx, { ...input, ...(feedback ? { feedback } : {}) });
    if (result.kind === 'clarification') {
      // the replan hook may ask and wait; its answers or assumptions plan again
      const asked = await ctx.hooks.replan.unclearGoal?.(result.error, ctx.signal);
      if (asked?.kind === 'replan') {
        feedback = asked.reason;
        continue;
      }
      return {
        kind: 'end',
        end: {
          state: 'FAILED',
          reason: 'clarification_needed',
          summary: `The goal is unclear: ${result.error.message}`,
          clarification: result.error,
          ...(asked?.kind === 'clarify' && asked.posted ? { clarificationPosted: true } : {}),
        },
      };
    }
    let replan: string | undefined;
    for (const point of PLANNING_POINTS) {
      const directive = await ctx.hooks.replan.decide(
        { point, plan: result.plan, run: runView(ctx) },
        ctx.signal,
      );
      const end = directiveEnd(directive);
      if (end) return { kind: 'end', end };
      if (directive.kind === 'replan' && replanAllowed(ctx)) {
        replan = directive.reason;
        break;
      }
    }
    if (replan === undefined) return { kind: 'plan', plan: result.plan };
    ctx.state.replans += 1;
    feedback = replan;
  }
}

type Reused =
  { kind: 'reused' } | { kind: 'end'; end: RunEnd } | { kind: 'plan'; feedback?: string };

/**
 * An earlier plan of the task is taken over when the rules of
 * ./reuse.ts allow. It was reviewed when it was made; it passes the
 * action-sequence checkpoint once more, where a resumed run's
 * answers, or the model, may still ask for a new plan.
 */
async function reuseEarlier(ctx: RunContext): Promise<Reused> {
  const candidate = await reusablePlan(ctx);
  if (!candidate) return { kind: 'plan' };
  const directive = await ctx.hooks.replan.decide(
    { point: 'action_sequence', plan: candidate.plan, run: runView(ctx) },
    ctx.signal,
  );
  const end = directiveEnd(directive);
  if (end) return { kind: 'end', end };
  if (directive.kind === 'replan' && replanAllowed(ctx)) {
    ctx.state.replans += 1;
    ctx.logger.info('earlier plan not reused: the replan checkpoint asked for a new plan', {
      from: candidate.earlier.taskId,
    });
    return { kind: 'plan', feedback: directive.reason };
  }
  await adoptEarlierPlan(ctx, candidate);
  return { kind: 'reused' };
}

/**
 * The planning phase: an earlier plan of the task is reused when it may be
 * (a retry or a resume); otherwise plan (with replan checkpoints), then the
 * planning review → revise cycle (docs/review.md), then the plan becomes the queue.
 */
export async function planningPhase(ctx: RunContext): Promise<StepResult> {
  const reused = await reuseEarlier(ctx);
  if (reused.kind === 'reused') return CONTINUE;
  if (reused.kind === 'end') return endWith(reused.end);
  let feedback = reused.feedback;
  for (let attempt = 0; ; attempt++) {
    const planned = await planWithCheckpoints(ctx, feedback ? { feedback } : {});
    if (planned.kind === 'end') return endWith(planned.end);
    const gate = await reviewGate(ctx, 'planning', attempt, JSON.stringify(planned.plan, null, 2));
    if (gate.kind === 'pass') {
      await adoptPlan(ctx, planned.plan);
      return CONTINUE;
    }
    if (gate.kind === 'end') return endWith(gate.end);
    feedback = gate.feedback;
  }
}

/** How the checklist changes for a restart point: a new goal or decomposition starts a fresh one. */
const CHANGE_FOR: Record<ReplanFrom, PlanChange> = {
  remaining_actions: 'replan',
  action_sequence: 'action_regeneration',
  task_decomposition: 'task_redecomposition',
  goal_understanding: 'goal_revision',
};

/** A replan decided during execution or evaluation: plan again, keeping executed actions. */
export async function replanDuringRun(
  ctx: RunContext,
  reason: string,
  from: ReplanFrom = 'remaining_actions',
  summary?: string,
): Promise<StepResult> {
  ctx.state.replans += 1;
  const planned = await planWithCheckpoints(ctx, {
    feedback: reason,
    completed: ctx.state.actions,
  });
  if (planned.kind === 'end') return endWith(planned.end);
  // the model's own words (else the reason's first line) become the checklist's revision reason
  await adoptPlan(ctx, planned.plan, CHANGE_FOR[from], summary ?? reason.split('\n')[0]);
  return CONTINUE;
}
