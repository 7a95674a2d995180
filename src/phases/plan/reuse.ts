/**
 * Plan reuse: "planning check → history exists → read the
 * existing plan → execution". A run whose history holds an earlier plan of
 * its task (a Task YAML run again, `/agent retry`, a resumed run) takes that
 * plan over with its revision history and reflections instead of planning
 * from scratch, unless the seed's own reasons to plan again apply:
 *
 * - the plan was carried out (its last verification passed): new work needs
 *   a new plan;
 * - the last reflection asked for a plan revision that was never made
 *   (e.g. the revision limit stopped it);
 * - the plan has used up `planning.revision.max_revisions`
 *   (it could not be repaired within the limit);
 * - it is not a valid plan any more.
 *
 * A reused plan keeps its revision count (the limit goes on counting) and
 * its reflections, which the reflection prompt shows.
 */
import type { Config } from '../../config/options.ts';
import { Plan } from '../../core/plan.ts';
import type { EarlierPlan, PlanReuse } from '../../core/ports.ts';
import type { RunContext } from '../../core/run-context.ts';
import { adoptPlan } from './state.ts';

export type ReuseDecision = { reuse: true; plan: Plan } | { reuse: false; why: string };

/** Whether the earlier plan is taken over, by the rules above (pure). */
export function reuseDecision(earlier: EarlierPlan, config: Config): ReuseDecision {
  const parsed = Plan.safeParse(earlier.plan);
  if (!parsed.success) return { reuse: false, why: 'the earlier plan is not a valid plan' };
  if (earlier.completed)
    return { reuse: false, why: 'the earlier run carried the plan out (its verification passed)' };
  if (earlier.revisionPending)
    return {
      reuse: false,
      why: 'the last reflection asked for a plan revision that was never made',
    };
  const max = config.planning.revision.max_revisions;
  if (earlier.revisions.length > 0 && earlier.revisions.length >= max)
    return {
      reuse: false,
      why: `the plan was revised ${earlier.revisions.length} times, the limit of planning.revision.max_revisions`,
    };
  return { reuse: true, plan: parsed.data };
}

export interface ReuseCandidate {
  earlier: EarlierPlan;
  plan: Plan;
}

/** The earlier plan when it may be reused; undefined: plan afresh (the reason is logged). */
export async function reusablePlan(ctx: RunContext): Promise<ReuseCandidate | undefined> {
  const { config } = ctx;
  if (!config.planning.enabled || !config.planning.history.reuse_plan) return undefined;
  const earlier = await ctx.deps.history.earlierPlan?.();
  if (!earlier) return undefined;
  const decision = reuseDecision(earlier, config);
  if (!decision.reuse) {
    ctx.logger.info('earlier plan not reused; planning again', {
      from: earlier.taskId,
      why: decision.why,
    });
    return undefined;
  }
  return { earlier, plan: decision.plan };
}

/** Adopts the earlier plan: revision count and reflections carry over; the history records the reuse. */
export async function adoptEarlierPlan(ctx: RunContext, candidate: ReuseCandidate): Promise<void> {
  const { earlier, plan } = candidate;
  ctx.state.reusedPlan = earlier;
  ctx.state.revisions = earlier.revisions.length;
  const reuse: PlanReuse = {
    task_id: earlier.taskId,
    planned_at: earlier.at,
    revisions: earlier.revisions.length,
    reflections: earlier.reflections.length,
  };
  const comment = `Reusing the plan of ${earlier.taskId} (${reuse.revisions} revisions, ${reuse.reflections} reflections).`;
  ctx.logger.info('earlier plan reused', { ...reuse });
  await adoptPlan(ctx, plan, 'initial', comment, reuse);
}
