import type { BudgetSpend } from './budget.ts';
import type { ExitCode } from '../errors/exit-code.ts';
import type { Plan, UnclearGoal } from './plan.ts';
import type { ReflectionReply } from './reflection.ts';
import type { CompletionAssessment } from './completion.ts';
import type { EnvironmentHandoff } from './environment.ts';
import type { ActionRecord, DeliveryReport, MetaCallLog, TestRun, TokenTotals } from './records.ts';
import type { CancelCause, ErrorFacts } from './progress/model.ts';
import type { ChecklistItem, ReviewRecord } from './progress/reports.ts';
import type { TaskState, Transition } from './state-machine.ts';

export type OutcomeReason =
  | 'completed'
  | 'max_loops'
  | 'human_intervention'
  | 'clarification_needed'
  | 'no_further_work'
  | 'phase_failed'
  | 'stopped'
  | 'paused'
  | 'budget_exhausted'
  | 'cancelled'
  | 'error';

/** The model's "completion" JSON: how the task ended, in its words. */
export interface CompletionSummary {
  phase: 'completion';
  summary: {
    goal_achieved: boolean;
    tasks_completed: number;
    tasks_failed: number;
    key_outcomes: string[];
  };
  done: boolean;
  comment: string;
}

/** The plan revision limit was reached: a person has to step in. */
export interface HumanInterventionResult {
  phase: 'completion';
  status: 'requires_human_intervention';
  summary: {
    goal_achieved: false;
    tasks_completed: number;
    tasks_failed: number;
    revision_attempts: number;
    reason: string;
    current_state: string;
    recommendations: string[];
  };
  comment: string;
}

export interface AcceptanceCriterion {
  id: string;
  description: string;
  passed: boolean;
}

/** Everything the report layer needs: Task Note, result.json, final note. */
export interface RunOutcome {
  taskId: string;
  title: string;
  state: Extract<TaskState, 'COMPLETE' | 'FAILED'>;
  reason: OutcomeReason;
  /** One paragraph for people. */
  summary: string;
  /**
   * 0 complete, 1 failed, 2 when a user error (configuration, task file) stopped the run,
   * 3 delivered elsewhere; 128 + the signal's number after a termination signal.
   */
  exitCode: ExitCode | number;
  startedAt: number;
  finishedAt: number;
  durationMs: number;
  request: { source: string; reference?: string; title: string; text: string };
  plan?: Plan;
  revisions: number;
  checklist: ChecklistItem[];
  criteria: AcceptanceCriterion[];
  actions: ActionRecord[];
  reflections: ReflectionReply[];
  /** Review verdicts, oldest first. */
  reviews: ReviewRecord[];
  environment?: EnvironmentHandoff;
  tests: TestRun[];
  assessment?: CompletionAssessment;
  completion: CompletionSummary | HumanInterventionResult;
  clarification?: UnclearGoal;
  /** The ❓ note was posted during the run (replan hook), so the final report does not repeat it. */
  clarificationPosted?: boolean;
  error?: ErrorFacts;
  /** A cancelled run: who or what stopped it, when known. */
  cancelCause?: CancelCause;
  changedFiles: string[];
  /** What delivery did (absent when the run has no delivery step or did not complete). */
  delivery?: DeliveryReport;
  /** The run reviewed a merge request (`/agent review`): its result is the review threads. */
  reviewOnly?: boolean;
  metaCalls: MetaCallLog[];
  tokens: TokenTotals;
  /** What the run spent against its budget, when one was set. */
  budget?: BudgetSpend;
  loops: number;
  transitions: Transition[];
  /**
   * Set when the progress note's final state could not be written: the job
   * says so and exits non-zero, so it does not look successful.
   */
  finalStateNotWritten?: string;
}

export function criteriaOf(
  plan: Plan | undefined,
  assessment: CompletionAssessment | undefined,
): AcceptanceCriterion[] {
  const passed = new Set(assessment?.details.passed_criteria ?? []);
  return (plan?.goal_understanding.success_criteria ?? []).map((description, i) => {
    const id = `AC-${i + 1}`;
    return { id, description, passed: passed.has(id) };
  });
}

export function completionSummary(
  actions: readonly ActionRecord[],
  goalAchieved: boolean,
  keyOutcomes: string[],
  comment: string,
): CompletionSummary {
  return {
    phase: 'completion',
    summary: {
      goal_achieved: goalAchieved,
      tasks_completed: actions.filter((a) => a.status === 'success').length,
      tasks_failed: actions.filter((a) => a.status === 'failure').length,
      key_outcomes: keyOutcomes,
    },
    done: goalAchieved,
    comment,
  };
}

export function humanIntervention(input: {
  actions: readonly ActionRecord[];
  revisions: number;
  maxRevisions: number;
  lastReflection: ReflectionReply | undefined;
  remaining: number;
}): HumanInterventionResult {
  const { actions, lastReflection } = input;
  const failed = actions.filter((a) => a.status === 'failure');
  const lastFailure = failed[failed.length - 1];
  const recommendations = [
    ...(lastReflection?.reflection.issues_identified ?? []),
    ...(lastFailure?.action.fallback_strategy ? [lastFailure.action.fallback_strategy] : []),
  ];
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  return {
    phase: 'completion',
    status: 'requires_human_intervention',
    summary: {
      goal_achieved: false,
      tasks_completed: actions.length - failed.length,
      tasks_failed: failed.length,
      revision_attempts: input.revisions,
      reason: `The plan revision limit was reached (max_revisions = ${input.maxRevisions}).`,
      current_state: `${plural(actions.length, 'action')} executed (${failed.length} failed); ${plural(input.remaining, 'planned action')} not run.${lastFailure ? ` Last failure: ${lastFailure.key} (${lastFailure.action.task_id}): ${lastFailure.error ?? lastFailure.summary}` : ''}`,
      recommendations,
    },
    comment: 'Automatic processing is not making progress; a person needs to step in.',
  };
}
