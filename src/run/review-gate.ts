import type { RunContext } from './context.ts';
import type { ReviewedPhase } from './hooks.ts';
import type { RunEnd } from './run-end.ts';

export type GateResult =
  { kind: 'pass' } | { kind: 'revise'; feedback: string } | { kind: 'end'; end: RunEnd };

/**
 * The review step of a phase (seed 004 FR-3; SPEC G1): PASS or
 * PASS_WITH_SUGGESTIONS go on; FAIL asks for a revision, and after
 * `review.max_revisions` revisions still FAIL the phase fails and the later
 * phases are skipped.
 */
export async function reviewGate(
  ctx: RunContext,
  phase: ReviewedPhase,
  attempt: number,
  text: string,
): Promise<GateResult> {
  const review = ctx.config.review;
  if (!review.enabled || !review.phases.includes(phase)) return { kind: 'pass' };
  const verdict = await ctx.hooks.review.review({ phase, attempt, text }, ctx.signal);
  ctx.logger.info('review verdict', { phase, attempt, result: verdict.result });
  if (verdict.result !== 'FAIL') return { kind: 'pass' };
  if (attempt < review.max_revisions) return { kind: 'revise', feedback: verdict.feedback };
  ctx.logger.error('Skipping subsequent phases due to failed phase', { phase });
  return {
    kind: 'end',
    end: {
      state: 'FAILED',
      reason: 'phase_failed',
      summary: `The ${phase} phase still failed review after ${review.max_revisions} revisions. Skipping subsequent phases due to failed phase: ${phase}. Last feedback: ${verdict.feedback}`,
    },
  };
}
