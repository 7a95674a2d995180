import type { EnvironmentInfo } from '../phases/gather/types.ts';
import type { SelectedEnvironment } from '../phases/plan/schema.ts';
import type { RunOutcome } from './outcome.ts';

/** Progress phases of seed 000 §5.4 (SPEC E6). */
export const PROGRESS_PHASES = [
  'pre_planning',
  'planning',
  'environment_setup',
  'execution',
  'reflection',
  'verification',
  'complete',
] as const;
export type ProgressPhase = (typeof PROGRESS_PHASES)[number];
export type PhaseStatus = 'running' | 'done' | 'failed' | 'skipped';

export type ChecklistStatus = 'pending' | 'running' | 'done' | 'failed';
export interface ChecklistItem {
  id: string;
  /** `task_1: purpose` */
  label: string;
  taskId: string;
  status: ChecklistStatus;
}

/**
 * Where the run reports progress: the progress note (GitLab) or the terminal
 * and `.mr-agent/` (local). Calls other than `final` are fire-and-forget; the
 * publisher behind them throttles and coalesces.
 */
export interface RunReporter {
  phase(phase: ProgressPhase, status: PhaseStatus): void;
  /** The plan as a checklist (D5), again after every revision. */
  plan(items: readonly ChecklistItem[], info: { revision: number; comment: string }): void;
  item(id: string, status: ChecklistStatus): void;
  /** The model's latest `comment`, shown in the note. */
  comment(text: string): void;
  /** The final state, always written (also on failure and cancellation): Task Note, result.json, notes. */
  final(outcome: RunOutcome): Promise<void>;
}

/** Planning-history entries (seed 001 §7.4.2, §11; SPEC I1). The store adds timestamps. */
export type HistoryEntry =
  | { type: 'plan'; plan: unknown }
  | { type: 'revision'; reason: string; changes: unknown[]; updated_plan: unknown }
  | { type: 'reflection'; evaluation: unknown }
  | { type: 'verification'; assessment: unknown; tests: unknown[] }
  | { type: 'action'; key: string; task_id: string; status: string; summary: string }
  | { type: 'run'; state: string; reason: string; summary: string };

export interface RunHistory {
  /** Earlier runs on the same MR/issue, as short lines for the planner. */
  pastExecutions(): Promise<string[]>;
  append(entry: HistoryEntry): Promise<void>;
}

/** The hand-off of seed 000 §6.1 (SPEC E5). */
export interface EnvironmentHandoff {
  environment_ready: boolean;
  environment_name: string;
  setup_status: 'success' | 'failed';
  errors: string[];
}

/** The environment helper's part of the run (seed 000 §3, §5, §7.2). */
export interface EnvironmentStep {
  /** Environment information for pre-planning (C2); undefined when nothing was found. */
  detect(repoDir: string, signal?: AbortSignal): Promise<EnvironmentInfo | undefined>;
  /** Runs the setup sub-phase for the planner's choice. */
  setup(selected: SelectedEnvironment, signal?: AbortSignal): Promise<EnvironmentHandoff>;
  /** The environment section of the execution prompt (seed 000 §7.2). */
  executionSection(handoff: EnvironmentHandoff): string;
}
