/**
 * The review phase (docs/review.md): the real `ReviewHook`. A
 * planning review judges the plan against the request, an execution review
 * the working-tree diff against the success criteria. The reply is read by
 * `parseReviewVerdict` (JSON first, then verdict markers, else FAIL) and the
 * path that decided is logged in the seed's words (AC-1, AC-2). What happens
 * with the verdict — revise, fail the phase — is the run's review gate
 * (src/run/review-gate.ts).
 */
import type { Logger } from '../../log/logger.ts';
import { parseReviewVerdict, type ParsedReviewVerdict } from '../../llm/review-verdict.ts';
import type { RunContext } from '../../core/run-context.ts';
import type { ReviewHook, ReviewSubject, ReviewVerdict } from '../../core/hooks.ts';
import { reviewMessages } from './messages.ts';

/** Longest feedback passed on (revise prompt, note, Task Note). */
export const FEEDBACK_CHARS = 8_000;
const NO_FEEDBACK = 'The reviewer gave no reasons.';

/** Seed 004 AC-1 ("JSON抽出成功") and AC-2 ("フォールバック判定: FAIL（マーカーパターン: 最終判定）"). */
export function logVerdictPath(
  logger: Logger,
  parsed: ParsedReviewVerdict,
  where: { phase: string; attempt: number },
): void {
  const meta = { ...where, result: parsed.result, source: parsed.source };
  if (parsed.source === 'json') logger.info('JSON extraction succeeded', meta);
  else if (parsed.source === 'marker')
    logger.info(`Fallback verdict: ${parsed.result} (marker pattern: ${parsed.marker})`, {
      ...meta,
      marker: parsed.marker,
    });
  else logger.warn('Fallback verdict: FAIL (no marker pattern found, defaulting to FAIL)', meta);
}

/**
 * The feedback passed on: the JSON `feedback`; a JSON verdict without one
 * that is not PASS keeps the whole reply (its reasons are often prose after
 * the JSON); markers and the default keep the whole reply.
 */
function feedbackOf(parsed: ParsedReviewVerdict, reply: string): string {
  let text = (parsed.feedback ?? '').trim();
  if (!text && parsed.source === 'json' && parsed.result !== 'PASS') text = reply.trim();
  if (!text) return parsed.result === 'FAIL' ? NO_FEEDBACK : '';
  return text.length <= FEEDBACK_CHARS ? text : `${text.slice(0, FEEDBACK_CHARS)} …`;
}

/** One review: prompt, `review.<phase>` call (role `review`), verdict. */
export async function reviewPhase(
  ctx: RunContext,
  subject: ReviewSubject,
  signal?: AbortSignal,
): Promise<ReviewVerdict> {
  const messages = await reviewMessages(ctx, subject);
  const reply = await ctx.llm.chat({
    purpose: `review.${subject.phase}`,
    role: 'review',
    messages,
    ...(signal ? { signal } : {}),
  });
  const text = reply.content ?? '';
  const parsed = parseReviewVerdict(text);
  logVerdictPath(ctx.logger, parsed, { phase: subject.phase, attempt: subject.attempt });
  return { result: parsed.result, feedback: feedbackOf(parsed, text) };
}

/** The review hook of a run (wired by `createRunContext` when `review.enabled`). */
export function reviewHook(ctx: RunContext): ReviewHook {
  return { review: (subject, signal) => reviewPhase(ctx, subject, signal) };
}
