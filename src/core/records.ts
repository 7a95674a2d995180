import type { PhaseName as ProgressPhase } from './progress/model.ts';
import type { TokenUsage } from './llm-port.ts';
import type { PlannedAction } from './plan.ts';

/** What the run keeps about each executed action (a "worker run" in the Task Note). */
export interface ToolCallRecord {
  name: string;
  ok: boolean;
  /** A short form of the arguments (paths, commands), for notes and logs. */
  brief: string;
  durationMs: number;
  /** The first characters of the output, for reflection and notes. */
  outputHead: string;
}

export interface ActionRecord {
  key: string;
  action: PlannedAction;
  status: 'success' | 'failure';
  /** The model's closing message (or why the action stopped). */
  summary: string;
  toolCalls: ToolCallRecord[];
  turns: number;
  startedAt: number;
  finishedAt: number;
  /** Set when the action failed: the reason in one line. */
  error?: string;
}

/** One JSON call to the model (planning, reflection, completion …) for the Task Note. */
export interface MetaCallLog {
  purpose: string;
  at: number;
  durationMs: number;
  /** Size of the request: messages and characters. */
  request: { messages: number; chars: number };
  /** The reply text (capped). */
  response: string;
  usage: TokenUsage;
  reasks: number;
}

export interface TestRun {
  command: string;
  cwd: string;
  exitCode: number | undefined;
  passed: boolean;
  timedOut: boolean;
  durationMs: number;
  /** The end of the output. */
  outputTail: string;
  /** Where the command came from. */
  source: 'task' | 'config' | 'detected';
}

export interface PurposeUsage extends TokenUsage {
  calls: number;
}

export interface TokenTotals extends TokenUsage {
  byPurpose: Record<string, PurposeUsage>;
  calls: number;
}

export function emptyUsage(): TokenUsage {
  return { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
}

/** Adds `usage` into `into`; the cost adds up when known (SPEC H1), else stays absent. */
export function addUsage(into: TokenUsage, usage: TokenUsage): void {
  into.promptTokens += usage.promptTokens;
  into.completionTokens += usage.completionTokens;
  into.totalTokens += usage.totalTokens;
  if (usage.costUsd !== undefined) into.costUsd = (into.costUsd ?? 0) + usage.costUsd;
}

export type PhaseStatus = 'running' | 'done' | 'failed' | 'skipped';

/** The step inside a reviewed phase (seed 004 FR-3; `metadata.json` `current_step`). */
export type PhaseStep = 'execute' | 'review' | 'revise';

/** One review verdict of a phase (seed 004), for the progress note and the Task Note. */
export interface ReviewRecord {
  phase: ProgressPhase;
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
 * finished items (seed 003 §11.4.3). `replan` is a partial replan.
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
}

/** What delivery did with the finished change (SPEC H3), for the notes and result.json. */
export interface DeliveryReport {
  /**
   * `pushed-elsewhere` / `patch-posted`: the change is not on the branch it
   * belongs on (`intendedBranch`, `notPushedReason`) but on `branch` or in a
   * patch note — "delivered elsewhere" (exit code 3).
   */
  status: 'pushed' | 'pushed-elsewhere' | 'no-changes' | 'disabled' | 'patch-posted';
  /** Where the change was pushed; for `patch-posted`, the branch it was meant for. */
  branch?: string;
  commit?: string;
  /** A page showing the pushed commit (GitLab), when known. */
  commitUrl?: string;
  mergeRequestUrl?: string;
  patchNoteUrl?: string;
  /** Why nothing was pushed, or not where it belongs. */
  notPushedReason?: string;
  /** The branch the change belongs on, when it went elsewhere (`pushed-elsewhere`). */
  intendedBranch?: string;
  /** The patch in the job artifacts (`.mr-agent/patch.diff`), when the change went elsewhere. */
  patchPath?: string;
}
