import type { LlmPort } from './llm-port.ts';
import type { CompletionAssessment } from './completion.ts';
import type { Plan, UnclearGoal } from './plan.ts';
import type { PlanStep } from './plan-steps.ts';
import type { ActionRecord, TestRun } from './records.ts';

/**
 * Seams for two later features, so they plug in without rewrites:
 * - LLM-decided replanning (docs/replanning.md): a decision after goal understanding,
 *   task decomposition, action-sequence generation, each action and the
 *   final evaluation (`ReplanHook`);
 * - review → revise cycles per phase (`ReviewHook`, docs/review.md).
 * The defaults do nothing: `continue` and `PASS`.
 */
/** What a replan decision may look at besides the plan, filled by the run. */
export interface RunView {
  /** The request being worked on: title and text. */
  request: string;
  /** Names of the tools the execution may use. */
  tools: readonly string[];
  /** Actions executed so far in this run, oldest first. */
  actions: readonly ActionRecord[];
  changedFiles: readonly string[];
  /** The run's LLM port: calls through it count in the run's token totals and stop on cancel. */
  llm: LlmPort;
}

export type ReplanCheckpoint = (
  | { point: 'goal_understanding' | 'task_decomposition' | 'action_sequence'; plan: Plan }
  | { point: 'execution'; plan: Plan; action: ActionRecord; remaining: readonly PlanStep[] }
  | {
      point: 'final_evaluation';
      plan: Plan;
      assessment: CompletionAssessment;
      tests: readonly TestRun[];
    }
) & { run?: RunView };
export type ReplanPoint = ReplanCheckpoint['point'];

/** Where a replan restarts (levels 2–5, docs/replanning.md). */
export type ReplanFrom =
  'remaining_actions' | 'action_sequence' | 'task_decomposition' | 'goal_understanding';

export type ReplanDirective =
  | { kind: 'continue' }
  /** Level 1: run the same action again (execution checkpoint only). */
  | { kind: 'retry_action'; reason: string }
  /** Levels 2–5: plan again from `from`, with the reason given to the planner. */
  | {
      kind: 'replan';
      from: ReplanFrom;
      reason: string;
      /** Why, in the model's own words (the note's revision reason; `reason` is the planner's). */
      summary?: string;
    }
  /**
   * Ask the people on the MR/issue; the run ends waiting for an answer.
   * `posted`: the hook has already posted the ❓ note (no second one at the end).
   */
  | { kind: 'clarify'; questions: string[]; assumptions: string[]; posted?: boolean }
  /** A limit was reached or the hook decided the run cannot go on. */
  | { kind: 'stop'; reason: string };

/** How the run ended, as the replan hook is told. */
export interface RunEndInfo {
  state: 'COMPLETE' | 'FAILED';
  reason: string;
}

export interface ReplanHook {
  decide(checkpoint: ReplanCheckpoint, signal?: AbortSignal): Promise<ReplanDirective>;
  /**
   * The planner found the goal unclear: the hook may ask and
   * wait and return `replan` with the answers or assumptions as feedback;
   * anything else ends the run with the planner's questions.
   */
  unclearGoal?(unclear: UnclearGoal, signal?: AbortSignal): Promise<ReplanDirective>;
  /** Called once when the run ends (records a replan still in flight, keeps state for a resume). */
  ended?(end: RunEndInfo): Promise<void>;
}

export const noReplan: ReplanHook = {
  decide: async () => ({ kind: 'continue' }),
};

export type ReviewedPhase = 'planning' | 'execution';

/** What a reviewer sees: the phase's result as text (plan JSON, change summary). */
export interface ReviewSubject {
  phase: ReviewedPhase;
  /** 0 for the first attempt, then 1, 2 … after each revise. */
  attempt: number;
  text: string;
}

/** The review verdict (docs/review.md). */
export interface ReviewVerdict {
  result: 'PASS' | 'FAIL' | 'PASS_WITH_SUGGESTIONS';
  feedback: string;
}

export interface ReviewHook {
  review(subject: ReviewSubject, signal?: AbortSignal): Promise<ReviewVerdict>;
}

export const noReview: ReviewHook = {
  review: async () => ({ result: 'PASS', feedback: '' }),
};

export interface RunHooks {
  replan: ReplanHook;
  review: ReviewHook;
}
