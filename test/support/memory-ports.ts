import type {
  ChecklistItem,
  ChecklistStatus,
  HistoryEntry,
  PhaseStatus,
  ProgressPhase,
  RunHistory,
  RunReporter,
} from '../../src/run/ports.ts';
import type { RunOutcome } from '../../src/run/outcome.ts';

export type ReportEvent =
  | { type: 'phase'; phase: ProgressPhase; status: PhaseStatus }
  | { type: 'plan'; items: ChecklistItem[]; revision: number; comment: string }
  | { type: 'item'; id: string; status: ChecklistStatus }
  | { type: 'comment'; text: string };

/** Records what the run reports, for assertions. */
export class MemoryReporter implements RunReporter {
  readonly events: ReportEvent[] = [];
  outcome: RunOutcome | undefined;

  phase(phase: ProgressPhase, status: PhaseStatus): void {
    this.events.push({ type: 'phase', phase, status });
  }
  plan(items: readonly ChecklistItem[], info: { revision: number; comment: string }): void {
    this.events.push({ type: 'plan', items: items.map((i) => ({ ...i })), ...info });
  }
  item(id: string, status: ChecklistStatus): void {
    this.events.push({ type: 'item', id, status });
  }
  comment(text: string): void {
    this.events.push({ type: 'comment', text });
  }
  async final(outcome: RunOutcome): Promise<void> {
    this.outcome = outcome;
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

export class MemoryHistory implements RunHistory {
  readonly entries: HistoryEntry[] = [];
  constructor(private readonly past: string[] = []) {}
  async pastExecutions(): Promise<string[]> {
    return this.past;
  }
  async append(entry: HistoryEntry): Promise<void> {
    this.entries.push(structuredClone(entry));
  }
  types(): string[] {
    return this.entries.map((e) => e.type);
  }
}
