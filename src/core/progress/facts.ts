/**
 * The run's end as facts for the notes: what was delivered,
 * which checks ran, the acceptance criteria as text, why it failed (the
 * error catalog's blame and hint) or what stopped it.
 */
import type { RunOutcome } from '../outcome.ts';
import type { RunFacts } from './model.ts';

/** `received SIGTERM` → `SIGTERM`: what cancelled the run, when the error says. */
function cancelledBy(outcome: RunOutcome): string | undefined {
  return /\b(SIG[A-Z]+)\b/.exec(outcome.error?.message ?? '')?.[1];
}

export function runFacts(outcome: RunOutcome, extra: { taskNoteUrl?: string } = {}): RunFacts {
  const cancelled = outcome.reason === 'cancelled';
  const signal = cancelled ? cancelledBy(outcome) : undefined;
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
    ...(signal ? { cancelledBy: signal } : {}),
    questions: outcome.clarification?.clarification_needed.length ?? 0,
    ...('status' in completion ? { revisionsUsed: completion.summary.revision_attempts } : {}),
    ...(extra.taskNoteUrl ? { taskNoteUrl: extra.taskNoteUrl } : {}),
  };
}
