import { describeError, hintOf } from '../errors/catalog.ts';
import { CancelledError, ExternalServiceError, isAgentError } from '../errors/errors.ts';
import { exitCodeFor, exitCodeForCompletion } from '../errors/exit-code.ts';
import type { RunContext } from '../core/run-context.ts';
import { completionSummary, criteriaOf, type RunOutcome } from '../core/outcome.ts';
import type { RunEnd } from '../core/run-end.ts';
import type { CancelCause } from '../core/progress/model.ts';
import { cancelCauseOf, terminationExitCode } from './lifecycle.ts';
import { isFinalStateNotWritten } from './reporting/final-state.ts';

/** The one place where a thrown error becomes the end of the run. */
export function endFromError(ctx: RunContext, error: unknown): RunEnd {
  const cancelled = ctx.signal?.aborted === true || error instanceof CancelledError;
  const described = describeError(error);
  if (cancelled) {
    return {
      state: 'FAILED',
      reason: 'cancelled',
      summary: `The run was cancelled while ${ctx.fsm.state}.`,
      error: error instanceof CancelledError ? error : new CancelledError('the run was cancelled'),
    };
  }
  ctx.logger.error('run failed', {
    state: ctx.fsm.state,
    error: described.message,
    blame: isAgentError(error) ? error.blame : 'internal',
  });
  return { state: 'FAILED', reason: 'error', summary: described.message, error };
}

/** What a service's refusal tells the notes: its status, the service, the variable, the wait. */
function serviceFacts(error: ExternalServiceError) {
  return {
    service: error.service,
    ...(error.status !== undefined ? { status: error.status } : {}),
    ...(error.credential ? { credential: error.credential } : {}),
    ...(error.retryAfterMs !== undefined ? { retryAfterMs: error.retryAfterMs } : {}),
  };
}

function buildOutcome(
  ctx: RunContext,
  end: RunEnd,
  cancelCause: CancelCause | undefined,
): RunOutcome {
  const { state, task } = ctx;
  const finishedAt = ctx.deps.clock.now();
  const request = state.gathered?.request;
  const goalAchieved = end.state === 'COMPLETE';
  const errorInfo = end.error === undefined ? undefined : describeError(end.error);
  return {
    taskId: task.id,
    title: task.title,
    state: end.state,
    reason: end.reason,
    summary: ctx.deps.redactor.redact(end.summary),
    // after a termination signal the process exits 128 + its number, and result.json says so;
    // a paused run is no failure: its job ends green, `/agent resume` carries it on
    exitCode:
      terminationExitCode(ctx.signal) ??
      (goalAchieved
        ? exitCodeForCompletion(state.delivery)
        : end.reason === 'paused' || end.reason === 'budget_exhausted'
          ? 0
          : end.error !== undefined && end.reason === 'error'
            ? exitCodeFor(end.error)
            : 1),
    startedAt: ctx.startedAt,
    finishedAt,
    durationMs: finishedAt - ctx.startedAt,
    request: {
      source: request?.source ?? 'task',
      ...(request?.reference ? { reference: request.reference } : {}),
      title: request?.title ?? task.title,
      text: request?.body ?? task.description,
    },
    ...(state.plan ? { plan: state.plan } : {}),
    revisions: state.revisions,
    checklist: state.checklist,
    criteria: criteriaOf(state.plan, state.assessment),
    actions: state.actions,
    reflections: state.reflections,
    reviews: state.reviews,
    ...(state.environment ? { environment: state.environment } : {}),
    tests: state.tests,
    ...(state.assessment ? { assessment: state.assessment } : {}),
    completion:
      end.humanIntervention ??
      completionSummary(
        state.actions,
        goalAchieved,
        state.assessment?.details.passed_criteria.map((id) => `${id} passed`) ?? [],
        end.summary,
      ),
    ...(end.clarification ? { clarification: end.clarification } : {}),
    ...(end.clarificationPosted ? { clarificationPosted: true } : {}),
    ...(errorInfo
      ? {
          error: {
            message: errorInfo.message,
            blame: isAgentError(end.error) ? end.error.blame : 'internal',
            ...(isAgentError(end.error) && (end.error.hint || end.error.hintKey)
              ? { hint: hintOf(end.error)! }
              : {}),
            ...(isAgentError(end.error) && end.error.hintKey ? { hintKey: end.error.hintKey } : {}),
            ...(isAgentError(end.error) ? { kind: end.error.name } : {}),
            ...(end.error instanceof ExternalServiceError ? serviceFacts(end.error) : {}),
          },
        }
      : {}),
    ...(cancelCause ? { cancelCause } : {}),
    changedFiles: [...state.changedFiles],
    ...(state.delivery ? { delivery: state.delivery } : {}),
    ...(state.reviewOnly ? { reviewOnly: true } : {}),
    metaCalls: ctx.llm.metaCalls,
    tokens: ctx.llm.tokens,
    ...(ctx.deps.budget ? { budget: ctx.deps.budget.spend() } : {}),
    loops: ctx.fsm.loops,
    transitions: ctx.fsm.transitions,
  };
}

/**
 * Writes the final state — always, also on failure and cancellation:
 * the last transition, the history record, the final report. A failing
 * reporter or history store is logged and does not change the result.
 */
export async function finish(ctx: RunContext, end: RunEnd): Promise<RunOutcome> {
  if (!ctx.fsm.finished) ctx.fsm.to(end.state, end.reason);
  // who or what stopped a cancelled run: found out since the signal came, within a short bound
  const cancelCause = end.reason === 'cancelled' ? await cancelCauseOf(ctx.signal) : undefined;
  const outcome = buildOutcome(ctx, end, cancelCause);
  const { deps, logger } = ctx;
  try {
    await ctx.hooks.replan.ended?.({ state: end.state, reason: end.reason });
  } catch (error) {
    logger.warn('replan state not saved', { error: (error as Error).message });
  }
  deps.reporter.phase('complete', end.state === 'COMPLETE' ? 'done' : 'failed');
  try {
    await deps.reporter.final(outcome);
  } catch (error) {
    logger.error('final report could not be written', { error: (error as Error).message });
    if (isFinalStateNotWritten(error)) {
      // the requester still sees "running": the run must not look successful
      outcome.finalStateNotWritten = describeError(error).message;
      if (outcome.exitCode === 0) outcome.exitCode = 1;
    }
  }
  logger.info('run finished', {
    state: outcome.state,
    reason: outcome.reason,
    actions: outcome.actions.length,
    revisions: outcome.revisions,
    loops: outcome.loops,
    tokens: outcome.tokens.totalTokens,
    durationMs: outcome.durationMs,
  });
  return outcome;
}
