import type { UnclearGoal } from './plan.ts';
import type { HumanInterventionResult, OutcomeReason } from './outcome.ts';

/** How the pipeline ended; `finish` turns it into the RunOutcome. */
export interface RunEnd {
  state: 'COMPLETE' | 'FAILED';
  reason: OutcomeReason;
  summary: string;
  humanIntervention?: HumanInterventionResult;
  clarification?: UnclearGoal;
  /** The ❓ note was posted already (by the replan hook's clarification flow). */
  clarificationPosted?: boolean;
  error?: unknown;
}

/** A step either lets the pipeline go on or ends the run. */
export type StepResult = { kind: 'continue' } | { kind: 'end'; end: RunEnd };

export const CONTINUE: StepResult = { kind: 'continue' };

export function endWith(end: RunEnd): StepResult {
  return { kind: 'end', end };
}
