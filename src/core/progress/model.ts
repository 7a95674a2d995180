import type { BudgetSpend } from '../budget.ts';
import type { Language } from '../../messages/language.ts';

/**
 * The progress note as plain data. The run's reporter fills it from what
 * the phases report (`reports.ts`) through the pure functions of
 * `updates.ts`; `src/report/progress/render.ts` turns it into GitLab
 * markdown and the `ProgressPublisher` posts it. Times are epoch
 * milliseconds from the Clock.
 */

/** Progress phases in display order. */
export const PHASES = [
  'pre_planning',
  'planning',
  'environment_setup',
  'execution',
  'reflection',
  'verification',
  'complete',
] as const;
export type PhaseName = (typeof PHASES)[number];

export type PhaseState = 'pending' | 'running' | 'done' | 'failed' | 'skipped';

export interface PhaseStatus {
  state: PhaseState;
  /** First start (a phase such as reflection may run several times). */
  startedAt?: number;
  finishedAt?: number;
  /** Time spent in the phase over all its runs, in ms (updated when it stops). */
  totalMs?: number;
  /** How often the phase was entered (reflection and execution repeat). */
  runs?: number;
  /** A short note shown next to the state, e.g. "3/5 actions" or the failure reason. */
  detail?: string;
}

/**
 * One line of the plan checklist. A planner fills it from the plan's subtasks
 * (`task_decomposition.subtasks[]`: `id`, `description`).
 */
export interface ChecklistItem {
  /** Stable id from the plan, e.g. `task_1`; used to carry progress over revisions. */
  id: string;
  description: string;
  status: ChecklistStatus;
  /** A short remark shown after the item, e.g. why it failed or was skipped. */
  note?: string;
}

/** `running` marks the item being worked on now; the others are final. */
export type ChecklistStatus = 'pending' | 'running' | 'done' | 'failed' | 'skipped';

/** A plan as shown in the note: the initial plan is revision 0. */
export interface PlanVersion {
  revision: number;
  /** When this plan became current. */
  startedAt: number;
  items: ChecklistItem[];
  /** Why this plan replaced the previous one (revisions only). */
  reason?: string;
  /** Finished/total items of the plan it replaced (revisions only). */
  previousProgress?: { done: number; total: number };
  /** What kind of change produced it (revisions only). */
  change?: PlanChangeKind;
}

/**
 * What produced a new plan. The replan types the model may choose plus
 * `retry` (level 1) and `reflection` (a plan revised after reflection).
 */
export type PlanChangeKind =
  | 'retry'
  | 'partial_replan'
  | 'action_regeneration'
  | 'plan_revision'
  | 'reflection'
  | 'task_redecomposition'
  | 'goal_revision'
  | 'full_replan'
  | 'clarification_request';

/**
 * A replan's start, completion or failure: shown in the
 * progress note's history instead of a note of its own (the one-note rule).
 */
export interface ReplanEvent {
  /** `not_carried_out`: the model asked for a replan that a limit or the loop detection stopped. */
  event: 'started' | 'completed' | 'failed' | 'not_carried_out';
  /** The checkpoint that decided it (`task_decomposition`, …). */
  point: string;
  /** The replan type (`partial_replan`, …), on `started` and `not_carried_out`. */
  kind?: string;
  at: number;
  /** How long the replan took, on `completed` and `failed`. */
  durationMs?: number;
  /** The model's reasoning for the decision (its own words), on `started` and `not_carried_out`. */
  reasoning?: string;
  /** What stopped it, on `not_carried_out`: facts the note words in its language. */
  override?: ReplanOverrideFacts;
  /** What the run did instead, on `not_carried_out`. */
  then?: { kind: 'continue' } | { kind: 'stop' } | { kind: 'alternative'; replan: string };
}

/** Why a replan was not carried out, as facts (the catalog's `replanWhy.*` words them). */
export interface ReplanOverrideFacts {
  kind: 'phase_limit' | 'total_limit' | 'loop' | 'other';
  used?: number;
  limit?: number;
  /** The configuration option that sets the limit. */
  option?: string;
}

/**
 * Why a run failed, as the notes tell it: the error's own text, the error
 * catalog's blame and hint (src/errors/), the hint's catalog key when it has
 * one and the error's class (for its class hint), so a note in another
 * language than English can say what to do in that language.
 */
export interface ErrorFacts {
  message: string;
  blame: string;
  hint?: string;
  /** A `hint.*` key of the message catalog. */
  hintKey?: string;
  /** The error class, e.g. `ExternalServiceError`. */
  kind?: string;
  /** A service's HTTP status (401 refused key, 429 rate limit, …): the note blames by it. */
  status?: number;
  /** Which service answered it: `llm` or `gitlab`. */
  service?: string;
  /** The variable holding the key or token the service refused. */
  credential?: string;
  /** How long the service asked to wait (Retry-After), in ms. */
  retryAfterMs?: number;
}

export interface PlanProgress {
  current: PlanVersion;
  /** Earlier plans, oldest first, each frozen as it was when replaced. */
  history: PlanVersion[];
}

export interface EnvironmentResult {
  /** `python`, `node`, … as chosen by the planner. */
  name: string;
  status: 'ready' | 'failed_with_warnings' | 'skipped';
  /** Setup commands that ran and verifications that passed. */
  setupCommands?: number;
  verificationsPassed?: number;
  verificationsTotal?: number;
  durationMs?: number;
  /** A short explanation (e.g. the error classification when it failed). */
  detail?: string;
  /** The older Node major the tests run on, and the image's, when they ran none on it. */
  olderNode?: { major: number; current: number };
}

export type ReviewResult = 'PASS' | 'FAIL' | 'PASS_WITH_SUGGESTIONS';

/** The latest review verdict of one reviewed phase. */
export interface ReviewVerdict {
  phase: string;
  result: ReviewResult;
  /** 1 for the first review; grows with each revise. */
  attempt: number;
  /** Revisions allowed for the phase, shown as `attempt/max`. */
  maxAttempts?: number;
  feedback?: string;
}

export interface RoleUsage {
  promptTokens: number;
  completionTokens: number;
  calls: number;
}

export interface UsageSummary {
  /** Keyed by LLM role (`planning`, `execution`, `reflection`, `review`, …). */
  byRole: Record<string, RoleUsage>;
  /** Estimated cost in USD, when prices are known. */
  costUsd?: number;
}

/** How a run ended. */
export const FINAL_STATES = [
  'complete',
  'failed',
  'cancelled',
  'interrupted',
  'awaiting_answer',
  'needs_human',
  'paused',
  'budget_exhausted',
] as const;
export type FinalState = (typeof FINAL_STATES)[number];

export interface FinalOutcome {
  state: FinalState;
  summary: string;
  finishedAt: number;
}

export interface LinkRef {
  label: string;
  url: string;
}

/** What the run delivered, as the notes tell it. */
export interface DeliveryFacts {
  /** `pushed-elsewhere`: on `branch`, not on `intendedBranch` where it belongs (`notPushedReason`). */
  status: 'pushed' | 'pushed-elsewhere' | 'no-changes' | 'disabled' | 'patch-posted';
  branch?: string;
  intendedBranch?: string;
  commit?: string;
  commitUrl?: string;
  mergeRequestUrl?: string;
  patchNoteUrl?: string;
  notPushedReason?: string;
}

/** A check command the run ran (the last run of each command counts). */
export interface CheckFact {
  command: string;
  passed: boolean;
  timedOut: boolean;
  durationMs: number;
}

/**
 * How the run ended, in facts (set once, just before the final state): the
 * top lines of the progress and summary notes are built from them.
 */
export interface RunFacts {
  /** Absent: the run had no delivery step (local runs) or did not get there. */
  delivery?: DeliveryFacts;
  /** The run reviewed a merge request (`/agent review`) instead of changing it. */
  reviewOnly?: boolean;
  changedFiles: string[];
  checks: CheckFact[];
  /** Acceptance criteria as text, with whether the final check found them met. */
  criteria: Array<{ text: string; passed: boolean }>;
  /** Why the run failed: the error catalog's blame and hint (src/errors/). */
  error?: ErrorFacts;
  /** Questions waiting for an answer. */
  questions: number;
  /** Plan revisions used before the run asked for a person. */
  revisionsUsed?: number;
  taskNoteUrl?: string;
}

/** Who or what stopped a cancelled run, as the note names it. */
export type CancelCause =
  /** `/agent stop`, said by the GitLab user `by`. */
  | { kind: 'stop-command'; by: string }
  /** The pipeline or job was cancelled in GitLab (its page, the API). */
  | { kind: 'gitlab-cancel' }
  /** The job ran out of its timeout of `limitSeconds`. */
  | { kind: 'timeout'; limitSeconds: number }
  /** A termination signal from elsewhere: a terminal's Ctrl-C, a closed terminal. */
  | { kind: 'signal'; signal: string };

/** Other notes of the run the progress note links to. */
export type RelatedNote = 'question' | 'human-help' | 'patch';

export interface ProgressState {
  taskId: string;
  title: string;
  startedAt: number;
  /** CI job and pipeline ids, written into the hidden marker (absent locally). */
  jobId?: string;
  pipelineId?: string;
  jobUrl?: string;
  phases: Record<PhaseName, PhaseStatus>;
  plan?: PlanProgress;
  environment?: EnvironmentResult;
  reviews: ReviewVerdict[];
  usage: UsageSummary;
  /** LLM-decided replans executed so far, shown with the plan. */
  replans: number;
  /** When replans started, completed and failed, oldest first. */
  replanLog?: ReplanEvent[];
  /** Other links: Task Note, artifacts, delivery MR, earlier runs. */
  links: LinkRef[];
  /** A warning line shown under the header (e.g. an earlier run was interrupted). */
  notices: string[];
  /** The language the note is written in (default English). */
  language?: Language;
  /** The comment prefix that starts a run, e.g. `/agent` (default). */
  commandPrefix?: string;
  /** Set at the end: what the run delivered, checked and why it stopped. */
  facts?: RunFacts;
  /** Set at the end of a cancelled run: who or what stopped it. */
  cancelledBy?: CancelCause;
  /** The run did not stop within its grace period after the signal and was given up. */
  gaveUpAfterGrace?: boolean;
  /** Links to the run's other notes (❓ question, 🙋 help, patch). */
  related?: Partial<Record<RelatedNote, string>>;
  /** What the run spent against its budget, when one is set (shown from the first edit on). */
  budget?: BudgetSpend;
  final?: FinalOutcome;
}
