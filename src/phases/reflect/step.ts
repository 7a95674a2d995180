import { CancelledError, isAgentError } from '../../errors/errors.ts';
import { reflect, type ReflectInput } from './index.ts';
import type { ReflectionReply } from '../../core/reflection.ts';
import type { RunContext } from '../../core/run-context.ts';
import { humanIntervention } from '../../core/outcome.ts';
import { inPhase } from '../../core/phase-scope.ts';
import { carriedActionPlan, queueFeedback, replaceRemaining } from '../plan/state.ts';
import { CONTINUE, endWith, type StepResult } from '../../core/run-end.ts';

export interface ReflectOptions {
  /**
   * Whether a revision counts toward `max_revisions`.
   * Revisions after an open verification are bounded by `max_loops` instead.
   */
  countsAsRevision: boolean;
}

/** A failed reflection is logged and execution goes on with the plan as it is. */
async function reflectTolerantly(
  ctx: RunContext,
  input: ReflectInput,
): Promise<ReflectionReply | undefined> {
  try {
    return await reflect(ctx, input);
  } catch (error) {
    if (ctx.signal?.aborted || error instanceof CancelledError) throw error;
    if (!isAgentError(error)) throw error;
    ctx.logger.warn('reflection failed; continuing', {
      trigger: input.trigger,
      error: error.message,
    });
    return undefined;
  }
}

/**
 * Reflection and plan revision: the
 * reflection is saved; a needed revision replaces the remaining actions,
 * unless the limit is reached — then the run asks for a human.
 */
export async function reflectAndRevise(
  ctx: RunContext,
  input: ReflectInput,
  options: ReflectOptions,
): Promise<StepResult & { revised?: boolean }> {
  return inPhase(ctx, 'reflection', async () => {
    const reply = await reflectTolerantly(ctx, input);
    if (!reply) return CONTINUE;
    const { state, deps } = ctx;
    state.reflections.push(reply);
    await deps.history.saveReflection(reply);
    if (reply.comment) deps.reporter.comment(reply.comment);
    const revision = reply.plan_revision;
    if (!reply.reflection.plan_revision_needed || !revision) return CONTINUE;
    const max = ctx.config.planning.revision.max_revisions;
    if (options.countsAsRevision && state.revisions >= max) {
      const result = humanIntervention({
        actions: state.actions,
        revisions: state.revisions,
        maxRevisions: max,
        lastReflection: reply,
        remaining: state.queue.length,
      });
      ctx.logger.warn('plan revision limit reached', { revisions: state.revisions, max });
      return endWith({
        state: 'FAILED',
        reason: 'human_intervention',
        summary: `${result.summary.reason} ${result.comment}`,
        humanIntervention: result,
      });
    }
    if (options.countsAsRevision) state.revisions += 1;
    // the whole action plan from here on (succeeded actions + the new remaining), for a later run to reuse
    await deps.history.saveRevision(carriedActionPlan(ctx, revision.updated_action_plan), {
      reason: revision.reason,
      changes: revision.changes,
      reflection: reply,
    });
    const change =
      input.trigger === 'review' || input.trigger === 'validation' ? input.trigger : 'reflection';
    replaceRemaining(ctx, revision.updated_action_plan, reply.comment || revision.reason, change);
    ctx.logger.info('plan revised', {
      revision: state.revisions,
      remainingActions: state.queue.length,
      trigger: input.trigger,
    });
    return { ...CONTINUE, revised: true };
  });
}

/**
 * The revise step after an execution review FAIL: a
 * reflection on the feedback revises the remaining actions; when it proposes
 * no change (or fails), the feedback itself becomes the next action, so
 * execution runs again instead of showing the reviewer the same diff.
 */
export async function reviseAfterReview(ctx: RunContext, feedback: string): Promise<StepResult> {
  const revised = await reflectAndRevise(
    ctx,
    { trigger: 'review', feedback },
    { countsAsRevision: false },
  );
  if (revised.kind === 'end') return revised;
  if (revised.revised && ctx.state.queue.length > 0) return CONTINUE;
  ctx.logger.info('review feedback goes back to execution: the reflection proposed no change');
  queueFeedback(ctx, feedback);
  return CONTINUE;
}
