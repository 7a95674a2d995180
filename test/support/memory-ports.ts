import type {
  EnvironmentSetupOutcome,
  ExecutionRecord,
  RunHistory,
  RunReporter,
} from '../../src/core/ports.ts';
import type {
  ChecklistItem,
  ChecklistStatus,
  PhaseStatus,
  PhaseStep,
  PlanChange,
  ReviewRecord,
} from '../../src/core/progress/reports.ts';
import type { RunOutcome } from '../../src/core/outcome.ts';
import type { PhaseName } from '../../src/core/progress/model.ts';
import type { ActionPlan, Plan } from '../../src/core/plan.ts';
import type { ReflectionReply } from '../../src/core/reflection.ts';

export type ReportEvent =
  | { type: 'phase'; phase: PhaseName; status: PhaseStatus; detail?: string }
  | { type: 'step'; phase: PhaseName; step: PhaseStep; retryCount: number }
  | ({ type: 'review' } & ReviewRecord)
  | { type: 'plan'; items: ChecklistItem[]; revision: number; comment: string; change: string }
  | { type: 'item'; id: string; status: ChecklistStatus }
  | { type: 'comment'; text: string };

/** Records what the run reports, for assertions. */
export class MemoryReporter implements RunReporter {
  readonly events: ReportEvent[] = [];
  readonly environments: EnvironmentSetupOutcome[] = [];
  outcome: RunOutcome | undefined;

  phase(phase: PhaseName, status: PhaseStatus, detail?: string): void {
    this.events.push({ type: 'phase', phase, status, ...(detail ? { detail } : {}) });
  }
  step(phase: PhaseName, step: PhaseStep, retryCount: number): void {
    this.events.push({ type: 'step', phase, step, retryCount });
  }
  review(record: ReviewRecord): void {
    this.events.push({ type: 'review', ...record });
  }
  plan(
    items: readonly ChecklistItem[],
    info: { revision: number; comment: string; change: PlanChange },
  ): void {
    this.events.push({ type: 'plan', items: items.map((i) => ({ ...i })), ...info });
  }
  item(id: string, status: ChecklistStatus): void {
    this.events.push({ type: 'item', id, status });
  }
  comment(text: string): void {
    this.events.push({ type: 'comment', text });
  }
  async environment(outcome: EnvironmentSetupOutcome): Promise<void> {
    this.environments.push(outcome);
  }
  async final(outcome: RunOutcome): Promise<void> {
    this.outcome = outcome;
  }

  /** `planning:review#0`, `planning:revise#1`, … */
  steps(): string[] {
    return this.events.flatMap((e) =>
      e.type === 'step' ? [`${e.phase}:${e.step}#${e.retryCount}`] : [],
    );
  }
  phases(): string[] {
    return this.events.flatMap((e) => (e.type === 'phase' ? [`${e.phase}:${e.status}`] : []));
  }
  plans(): Array<Extract<ReportEvent, { type: 'plan' }>> {
    return this.events.filter(
      (e): e is Extract<ReportEvent, { type: 'plan' }> => e.type === 'plan',
    );
  }
}

export type MemoryHistoryEntry =
  | { type: 'plan'; plan: Plan }
  | { type: 'revision'; updated_plan: ActionPlan; reason: string; changes: unknown[] }
  | { type: 'reflection'; evaluation: ReflectionReply }
  | ({ type: 'execution' } & ExecutionRecord);

export class MemoryHistory implements RunHistory {
  readonly entries: MemoryHistoryEntry[] = [];
  constructor(private readonly past: string[] = []) {}
  async pastExecutions(): Promise<string[]> {
    return this.past;
  }
  async savePlan(plan: Plan): Promise<void> {
    this.entries.push({ type: 'plan', plan: structuredClone(plan) });
  }
  async saveRevision(
    updatedPlan: ActionPlan,
    details: { reason: string; changes: unknown[] },
  ): Promise<void> {
    this.entries.push({
      type: 'revision',
      updated_plan: updatedPlan,
      reason: details.reason,
      changes: details.changes,
    });
  }
  async saveReflection(reflection: ReflectionReply): Promise<void> {
    this.entries.push({ type: 'reflection', evaluation: reflection });
  }
  async saveExecution(record: ExecutionRecord): Promise<void> {
    this.entries.push({ type: 'execution', ...record });
  }
  types(): string[] {
    return this.entries.map((e) => (e.type === 'execution' ? `execution:${e.action_id}` : e.type));
  }
}
