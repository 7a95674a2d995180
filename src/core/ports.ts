import type { BudgetSpend } from './budget.ts';
import type { EnvironmentInfo } from './gathered.ts';
import type { EnvironmentHandoff } from './environment.ts';
import type { ActionPlan, Plan, SelectedEnvironment } from './plan.ts';
import type { ReflectionReply } from './reflection.ts';
import type { PhaseName } from './progress/model.ts';
import type { RunOutcome } from './outcome.ts';
import type { DeliveryReport } from './records.ts';
import type {
  ChecklistItem,
  ChecklistStatus,
  PhaseStatus,
  PhaseStep,
  PlanChange,
  ReviewRecord,
} from './progress/reports.ts';

/**
 * Where the run reports progress: the progress note (GitLab) or the terminal
 * and `.mr-agent/` (local). Calls other than `final` are fire-and-forget; the
 * publisher behind them throttles and coalesces.
 */
export interface RunReporter {
  /** `detail`: a short reason shown next to the state (e.g. why a phase failed or was skipped). */
  phase(phase: PhaseName, status: PhaseStatus, detail?: string): void;
  /** The step a reviewed phase is in and its revisions so far (`metadata.json`). */
  step(phase: PhaseName, step: PhaseStep, retryCount: number): void;
  /** A review verdict (shown in the note's review table). */
  review(record: ReviewRecord): void;
  /** The plan as a checklist, again after every revision. */
  plan(
    items: readonly ChecklistItem[],
    info: { revision: number; comment: string; change: PlanChange },
  ): void;
  item(id: string, status: ChecklistStatus): void;
  /** The model's latest `comment`, shown in the note. */
  comment(text: string): void;
  /** A line for the reader under the note's header (e.g. how a resumed run started). */
  notice?(text: string): void;
  /** The environment sub-phase's result: shown in the note; a failure note is posted. */
  environment(outcome: EnvironmentSetupOutcome): Promise<void>;
  /** The final state, always written (also on failure and cancellation): Task Note, result.json, notes. */
  final(outcome: RunOutcome): Promise<void>;
  /** What the run spent against its budget, after every LLM call (absent: not shown). */
  budget?(spend: BudgetSpend): void;
}

/** One executed action (or the verification) for the history. */
export interface ExecutionRecord {
  action_id: string;
  status: 'success' | 'error' | 'skipped';
  summary: string;
  tool?: string;
  duration_ms?: number;
}

/** One reflection of an earlier run, as the reflection prompt shows it. */
export interface EarlierReflection {
  at: string;
  status: string;
  evaluation: string;
  issues: readonly string[];
  revisionNeeded: boolean;
}

/**
 * The plan an earlier run of the task (or of the request `/agent retry` or a
 * resume runs again) left in the history, with its revision history and
 * reflections, so a retry or resume builds on what was tried instead of
 * starting over.
 */
export interface EarlierPlan {
  /** The task whose history holds it. */
  taskId: string;
  /** The plan as that run last carried it (revisions applied); validated by the planning phase. */
  plan: unknown;
  /** When it was made or last revised. */
  at: string;
  revisions: ReadonlyArray<{ revision: number; reason: string; at: string }>;
  reflections: readonly EarlierReflection[];
  /** A reflection after the last plan or revision asked for a revision that was never made. */
  revisionPending: boolean;
  /** The task's last verification passed: the plan was carried out. */
  completed: boolean;
}

/** How a reused plan is recorded in the history (`reused_from` of its `plan` entry). */
export interface PlanReuse {
  task_id: string;
  /** The timestamp of the entry the plan was read from. */
  planned_at: string;
  revisions: number;
  reflections: number;
}

/**
 * The planning history, backed by the JSONL
 * `PlanningHistoryStore` (src/history/); the store adds timestamps and ids.
 */
export interface RunHistory {
  /** Earlier runs on the same MR/issue (or task), as short lines for the planner. */
  pastExecutions(): Promise<string[]>;
  /** The plan an earlier run left to reuse; absent or undefined: none. */
  earlierPlan?(): Promise<EarlierPlan | undefined>;
  /** Saves the plan the run adopts; `reuse` when it is an earlier run's plan taken over. */
  savePlan(plan: Plan, reuse?: PlanReuse): Promise<void>;
  saveRevision(
    updatedPlan: ActionPlan,
    details: { reason: string; changes: unknown[]; reflection?: ReflectionReply },
  ): Promise<void>;
  saveReflection(reflection: ReflectionReply): Promise<void>;
  saveExecution(record: ExecutionRecord): Promise<void>;
}

/** What the environment sub-phase reports. */
export interface EnvironmentSetupOutcome {
  handoff: EnvironmentHandoff;
  /** The "environment setup failed" note, posted by the reporter. */
  failureNote?: string;
  /** For the progress note's environment section. */
  setupCommands: number;
  verificationsPassed: number;
  verificationsTotal: number;
  durationMs: number;
  detail?: string;
  /** The older Node the tests run on, when they ran none on the image's (`current`). */
  olderNode?: { major: number; current: number; because: string };
}

/** The environment phase's part of the run (src/phases/environment/). */
export interface EnvironmentStep {
  /** Environment information for pre-planning; undefined when nothing was found. */
  detect(repoDir: string, signal?: AbortSignal): Promise<EnvironmentInfo | undefined>;
  /** The setup sub-phase for the planner's choice (normalised with detection, D2). */
  setup(selected: SelectedEnvironment, signal?: AbortSignal): Promise<EnvironmentSetupOutcome>;
  /** The environment section of the execution prompt. */
  executionSection(handoff: EnvironmentHandoff): Promise<string>;
}

/** The finished change as delivery sees it. */
export interface ChangeToDeliver {
  /** The goal as the plan understood it (the commit title comes from it). */
  objective: string;
  /** The completion assessment's summary (the commit body). */
  summary: string;
  changedFiles: readonly string[];
  /**
   * Not pushed but kept as a patch note (and `.mr-agent/patch.diff`), for
   * this reason: someone asked the run to stop before it pushes.
   */
  patchOnly?: string | undefined;
}

/**
 * Delivery after a complete run (GUIDE: … → review → deliver): commit and
 * push, or a patch note. Absent: the change stays in the working tree
 * (local runs).
 */
export interface DeliveryStep {
  deliver(change: ChangeToDeliver, signal?: AbortSignal): Promise<DeliveryReport>;
}

/** One run of an external coding CLI on one planned action. */
export interface ActionWorkerRun {
  /** Undefined when the process never exited by itself (killed, not started). */
  exitCode: number | undefined;
  /** What the CLI says it did. */
  summary: string;
  /** Its combined output, capped. */
  rawOutput: string;
  /** Why the run did not succeed; absent on success. */
  error?: string;
  timedOut: boolean;
  cancelled: boolean;
  durationMs: number;
}

/**
 * An external coding CLI (`codex-cli`, `claude-code`, `gemini-cli`) that
 * carries out planned actions instead of the builtin tool loop.
 * Planning, environment setup, review, verification and delivery stay the
 * run's own. Absent: the builtin tool loop.
 */
export interface ActionWorker {
  readonly kind: string;
  run(request: { prompt: string; repoDir: string; signal?: AbortSignal }): Promise<ActionWorkerRun>;
}
