import type { FinalState, UsageSummary } from '../../core/progress/model.ts';
import type { ValidationRun } from '../../report/result-file.ts';
import type { TaskNoteData } from '../../report/task-note.ts';
import type { RunOutcome } from '../../core/outcome.ts';

/** How the note and result.json name the end of a run. */
export function finalState(outcome: RunOutcome): FinalState {
  if (outcome.state === 'COMPLETE') return 'complete';
  switch (outcome.reason) {
    case 'cancelled':
      return 'cancelled';
    case 'human_intervention':
      return 'needs_human';
    case 'clarification_needed':
      return 'awaiting_answer';
    case 'paused':
      return 'paused';
    case 'budget_exhausted':
      return 'budget_exhausted';
    default:
      return 'failed';
  }
}

export function usageSummary(outcome: RunOutcome): UsageSummary {
  const byRole = Object.fromEntries(
    Object.entries(outcome.tokens.byPurpose).map(([purpose, u]) => [
      purpose,
      { promptTokens: u.promptTokens, completionTokens: u.completionTokens, calls: u.calls },
    ]),
  );
  const cost = outcome.tokens.costUsd;
  return cost === undefined ? { byRole } : { byRole, costUsd: cost };
}

export function validationRuns(outcome: RunOutcome): ValidationRun[] {
  return outcome.tests.map((t) => ({
    command: t.command,
    exitCode: t.exitCode ?? null,
    durationMs: t.durationMs,
    timedOut: t.timedOut,
  }));
}

function parsedOrText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function workerOutput(action: RunOutcome['actions'][number]): string {
  const calls = action.toolCalls.map(
    (c) =>
      `$ ${c.name} ${c.brief} → ${c.ok ? 'ok' : 'error'} (${c.durationMs} ms)\n${c.outputHead}`,
  );
  return [
    `${action.action.task_id}: ${action.action.purpose}`,
    ...calls,
    `${action.status === 'success' ? 'DONE' : 'FAILED'} after ${action.turns} turns: ${action.summary}`,
  ].join('\n');
}

/** The last verdict of each reviewed phase, when it has something to say. */
function reviewNotes(outcome: RunOutcome): string[] {
  const last = new Map(outcome.reviews.map((r) => [r.phase, r]));
  return [...last.values()].flatMap((r) => {
    const feedback = r.feedback.trim();
    if (r.result === 'PASS_WITH_SUGGESTIONS' && feedback)
      return [`- Review suggestions (${r.phase}): ${feedback}`];
    if (r.result === 'FAIL')
      return [`- Review FAIL (${r.phase}, review ${r.attempt}/${r.maxAttempts}): ${feedback}`];
    return [];
  });
}

function openIssues(outcome: RunOutcome): string {
  const lines: string[] = [];
  if (outcome.error) lines.push(`- Error: ${outcome.error.message}`);
  lines.push(...reviewNotes(outcome));
  if (outcome.completion.phase === 'completion' && 'status' in outcome.completion)
    for (const r of outcome.completion.summary.recommendations) lines.push(`- ${r}`);
  for (const q of outcome.clarification?.clarification_needed ?? []) lines.push(`- Question: ${q}`);
  for (const r of outcome.assessment?.details.remaining_risks ?? []) lines.push(`- Risk: ${r}`);
  if (outcome.environment?.setup_status === 'failed')
    lines.push(`- Environment setup failed: ${outcome.environment.errors.join('; ')}`);
  return lines.length > 0 ? lines.join('\n') : 'None.';
}

/** The Task Note (docs/agent-runner.md) from the run's outcome. */
export function taskNoteData(outcome: RunOutcome): TaskNoteData {
  const last = outcome.tests.at(-1);
  return {
    id: outcome.taskId,
    title: outcome.title,
    startedAt: outcome.startedAt,
    finishedAt: outcome.finishedAt,
    state: outcome.state,
    summary: outcome.summary,
    prdSummary: outcome.plan?.goal_understanding.main_objective ?? outcome.request.title,
    prdText: outcome.request.text,
    acceptanceCriteria: outcome.criteria,
    metaCalls: outcome.metaCalls.map((c) => ({
      type: c.purpose,
      timestamp: c.at,
      request: { messages: c.request.messages, characters: c.request.chars, reasks: c.reasks },
      response: parsedOrText(c.response),
    })),
    workerRuns: outcome.actions.map((a) => ({
      id: a.key,
      startedAt: a.startedAt,
      finishedAt: a.finishedAt,
      exitCode: a.status === 'success' ? 0 : 1,
      rawOutput: workerOutput(a),
    })),
    ...(last
      ? {
          testResult: {
            command: last.command,
            exitCode: last.exitCode ?? null,
            summary: last.timedOut ? 'timed out' : last.passed ? 'passed' : 'failed',
            rawOutput: last.outputTail,
          },
        }
      : {}),
    notes: openIssues(outcome),
  };
}
