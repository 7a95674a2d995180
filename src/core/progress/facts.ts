/**
 * The run's end as facts for the notes: what was delivered,
 * which checks ran, the acceptance criteria as text, why it failed (the
 * error catalog's blame and hint); what stopped a cancelled run is the
 * outcome's `cancelCause` (`setCancelCause`).
 */
import type { RunOutcome } from '../outcome.ts';
import type { RunFacts } from './model.ts';

export function runFacts(outcome: RunOutcome, extra: { taskNoteUrl?: string } = {}): RunFacts {
  const cancelled = outcome.reason === 'cancelled';
  const completion = outcome.completion;
  return {
    ...(outcome.delivery ? { delivery: { ...outcome.delivery } } : {}),
    ...(outcome.reviewOnly ? { reviewOnly: true } : {}),
    changedFiles: [...outcome.changedFiles],
    checks: outcome.tests.map((t) => ({
      command: t.command,
      passed: t.passed,
      timedOut: t.timedOut,
      durationMs: t.durationMs,
    })),
    criteria: outcome.criteria.map((c) => ({ text: c.description, passed: c.passed })),
    ...(outcome.error && !cancelled ? { error: { ...outcome.error } } : {}),
    questions: outcome.clarification?.clarification_needed.length ?? 0,
    ...('status' in completion ? { revisionsUsed: completion.summary.revision_attempts } : {}),
    ...(extra.taskNoteUrl ? { taskNoteUrl: extra.taskNoteUrl } : {}),
  };
}
