/**
 * What the phases report while a run goes on, through the run's
 * `RunReporter` port: a phase's state and step, review verdicts and the plan
 * as a checklist. The reporter folds these events into the progress note's
 * data (`model.ts`) with the pure updates of `updates.ts`.
 */
import type { PhaseName } from './model.ts';

export type PhaseStatus = 'running' | 'done' | 'failed' | 'skipped';

/** The step inside a reviewed phase (`metadata.json` `current_step`). */
export type PhaseStep = 'execute' | 'review' | 'revise';

/** One review verdict of a phase, for the progress note and the Task Note. */
export interface ReviewRecord {
  phase: PhaseName;
  result: 'PASS' | 'FAIL' | 'PASS_WITH_SUGGESTIONS';
  /** 1 for the first review of the phase, growing with each revise. */
  attempt: number;
  /** Reviews the phase may have: `review.max_revisions + 1`. */
  maxAttempts: number;
  feedback: string;
}

/**
 * Why the checklist changed: the first plan, or what replaced it. Re-decomposing
 * the task and revisiting the goal start a fresh checklist; the others keep
 * finished items. `replan` is a partial replan.
 */
export type PlanChange =
  | 'initial'
  | 'reflection'
  | 'retry'
  | 'replan'
  | 'action_regeneration'
  | 'task_redecomposition'
  | 'goal_revision'
  | 'review'
  | 'validation';

export type ChecklistStatus = 'pending' | 'running' | 'done' | 'failed';
export interface ChecklistItem {
  id: string;
  /** `task_1: purpose` */
  label: string;
  taskId: string;
  status: ChecklistStatus;
  /**
   * The item carries a review's feedback back to execution (mr-agent's own
   * step, not the planner's): the note says so in its own language, around
   * the feedback's first line.
   */
  reviewFeedback?: string;
}
