/**
 * The replan state and the history entries (docs/replanning.md, "State and history"): the persisted
 * state of `state.ts` kept in memory and written through on every change,
 * and one `replan_decision` history entry per decision — a replan carried out
 * is recorded `pending` when decided and again, with the same id, with its
 * result and duration when the run reaches its next checkpoint (or ends).
 * A failed write is logged; it never stops the run.
 */
import type { ReplanDecisionInput } from '../../history/entries.ts';
import type { Logger } from '../../log/logger.ts';
import type { Clock } from '../../core/clock.ts';
import type { ReplanPoint } from '../../core/hooks.ts';
import { freshState, isResumable, type ReplanState, type ReplanStateStore } from './state.ts';

/** Where decisions are recorded: the JSONL planning history (`PlanningHistoryStore`). */
export interface ReplanRecorder {
  saveReplanDecision(input: ReplanDecisionInput): Promise<unknown>;
}

/** What a history entry is made of: where, what was decided (or asked), since when. */
export interface Recorded {
  checkpoint: { point: ReplanPoint; plan?: object };
  decision: object;
  started: number;
}

export type RecordFields = {
  executed: boolean;
  result: 'pending' | 'skipped' | 'success';
  override?: string;
};

const asJson = (value: object) => value as unknown as Record<string, unknown>;

/** A replan whose result was recorded: its checkpoint, result and duration. */
export interface SettledReplan {
  point: string;
  result: 'success' | 'failure';
  durationMs: number;
}

export class ReplanLedger {
  state: ReplanState;

  constructor(
    private readonly store: ReplanStateStore,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly recorder?: ReplanRecorder,
  ) {
    this.state = freshState(clock.now());
  }

  /**
   * Loads the state: a paused run's (awaiting an answer, or cancelled) is
   * continued; otherwise the counters start fresh and nothing is written
   * until the first decision. Returns whether the run is a resume.
   */
  async load(): Promise<boolean> {
    const loaded = await this.store.read();
    const resumable = isResumable(loaded);
    this.state = resumable
      ? { ...loaded, status: 'running' }
      : { ...freshState(this.clock.now()), decisions: loaded.decisions };
    if (this.state.in_flight) await this.settle('failure');
    if (resumable) await this.save();
    return resumable;
  }

  nextId(): string {
    this.state.decisions += 1;
    return `replan-${this.state.decisions}`;
  }

  async save(): Promise<void> {
    const next = { ...this.state, updated_at: this.clock.now() };
    await this.safely(async () => {
      this.state = await this.store.update(() => next);
    });
  }

  /** Marks a replan as handed to the run; its result is recorded by `settle`. */
  async launch(replanId: string, at: Recorded, confidence: number): Promise<void> {
    this.state.in_flight = {
      replan_id: replanId,
      point: at.checkpoint.point,
      decided_at: this.clock.now(),
      decision: asJson(at.decision),
      confidence,
      ...(at.checkpoint.plan ? { plan_before: asJson(at.checkpoint.plan) } : {}),
    };
    this.state.latest_decision = asJson(at.decision);
    await this.save();
  }

  /**
   * Records the result of the replan in flight: the next checkpoint was
   * reached, or the run ended first. Returns what was settled, if anything.
   */
  async settle(
    result: 'success' | 'failure',
    planAfter?: object,
  ): Promise<SettledReplan | undefined> {
    const flight = this.state.in_flight;
    if (!flight) return undefined;
    delete this.state.in_flight;
    await this.save();
    await this.safely(() =>
      this.recorder?.saveReplanDecision({
        replan_id: flight.replan_id,
        phase: flight.point,
        llm_decision: flight.decision,
        confidence: flight.confidence,
        executed: true,
        override_reason: null,
        result,
        duration_ms: Math.max(0, this.clock.now() - flight.decided_at),
        ...(flight.plan_before ? { plan_before: flight.plan_before } : {}),
        ...(planAfter ? { plan_after: asJson(planAfter) } : {}),
      }),
    );
    return {
      point: flight.point,
      result,
      durationMs: Math.max(0, this.clock.now() - flight.decided_at),
    };
  }

  async record(replanId: string, at: Recorded, fields: RecordFields): Promise<void> {
    const confidence = (at.decision as { confidence?: unknown }).confidence;
    await this.safely(() =>
      this.recorder?.saveReplanDecision({
        replan_id: replanId,
        phase: at.checkpoint.point,
        llm_decision: asJson(at.decision),
        confidence: typeof confidence === 'number' ? confidence : 0,
        executed: fields.executed,
        override_reason: fields.override ?? null,
        result: fields.result,
        duration_ms: Math.max(0, this.clock.now() - at.started),
        ...(at.checkpoint.plan ? { plan_before: asJson(at.checkpoint.plan) } : {}),
      }),
    );
  }

  /**
   * How the run ended decides whether the next run continues this state: a run
   * awaiting an answer, or cancelled (paused), is continued.
   */
  async end(reason: string): Promise<SettledReplan | undefined> {
    const settled = await this.settle('failure');
    const awaiting = reason === 'clarification_needed' && this.state.open_question;
    this.state.status = awaiting
      ? 'awaiting_answer'
      : reason === 'cancelled'
        ? 'paused'
        : 'finished';
    if (this.state.status === 'finished') delete this.state.open_question;
    await this.save();
    return settled;
  }

  private async safely(work: () => Promise<unknown> | undefined): Promise<void> {
    try {
      await work();
    } catch (error) {
      this.logger.warn('replan state or history not written', {
        error: (error as Error).message,
      });
    }
  }
}
