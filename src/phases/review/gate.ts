import type { RunContext } from '../../core/run-context.ts';
import type { ReviewedPhase, ReviewVerdict } from '../../core/hooks.ts';
import { PHASES, type PhaseName } from '../../core/progress/model.ts';
import type { RunEnd } from '../../core/run-end.ts';

export type GateResult =
  { kind: 'pass' } | { kind: 'revise'; feedback: string } | { kind: 'end'; end: RunEnd };

/** Phases that no longer run once `phase` failed (reflection runs inside execution). */
function laterPhases(phase: ReviewedPhase): PhaseName[] {
  const after = PHASES.slice(PHASES.indexOf(phase) + 1);
  return after.filter((p) => p !== 'complete' && !(phase === 'execution' && p === 'reflection'));
}

function recordVerdict(ctx: RunContext, phase: ReviewedPhase, attempt: number, v: ReviewVerdict) {
  const record = {
    phase,
    result: v.result,
    attempt: attempt + 1,
    maxAttempts: ctx.config.review.max_revisions + 1,
    feedback: v.feedback,
  };
  ctx.state.reviews.push(record);
  ctx.deps.reporter.review(record);
}

/**
 * Seed 004 FR-3, AC-5, AC-6: the phase is failed (with its revision count),
 * the later phases are skipped, the run ends with exit code 1.
 */
function failPhase(ctx: RunContext, phase: ReviewedPhase, feedback: string): GateResult {
  const max = ctx.config.review.max_revisions;
  const revisions = `${max} revision${max === 1 ? '' : 's'}`;
  const { logger, deps } = ctx;
  logger.error(`Phase ${phase}: Retry limit exceeded (${max}/${max}). Marking phase as failed.`, {
    phase,
    retryCount: max,
  });
  deps.reporter.step(phase, 'review', max);
  deps.reporter.phase(phase, 'failed', `review FAIL after ${revisions}`);
  logger.error(`Skipping subsequent phases due to failed phase: ${phase}`, { phase });
  for (const later of laterPhases(phase))
    deps.reporter.phase(later, 'skipped', `skipped: the ${phase} phase failed`);
  return {
    kind: 'end',
    end: {
      state: 'FAILED',
      reason: 'phase_failed',
      summary: `The ${phase} phase still failed review after ${revisions}. Skipping subsequent phases due to failed phase: ${phase}. Last feedback: ${feedback}`,
    },
  };
}

/**
 * The review step of a phase (docs/review.md): PASS or
 * PASS_WITH_SUGGESTIONS go on; FAIL asks for a revision, and after
 * `review.max_revisions` revisions still FAIL the phase fails and the later
 * phases are skipped. Steps and revision counts go to `metadata.json`,
 * verdicts to the progress note.
 */
export async function reviewGate(
  ctx: RunContext,
  phase: ReviewedPhase,
  attempt: number,
  text: string,
): Promise<GateResult> {
  const review = ctx.config.review;
  if (!review.enabled || !review.phases.includes(phase)) return { kind: 'pass' };
  ctx.deps.reporter.step(phase, 'review', attempt);
  const verdict = await ctx.hooks.review.review({ phase, attempt, text }, ctx.signal);
  ctx.logger.info('review verdict', { phase, attempt, result: verdict.result });
  recordVerdict(ctx, phase, attempt, verdict);
  if (verdict.result !== 'FAIL') return { kind: 'pass' };
  if (attempt >= review.max_revisions) return failPhase(ctx, phase, verdict.feedback);
  ctx.logger.info(`Phase ${phase}: Starting revise step`, { phase, retryCount: attempt + 1 });
  ctx.deps.reporter.step(phase, 'revise', attempt + 1);
  return { kind: 'revise', feedback: verdict.feedback };
}
