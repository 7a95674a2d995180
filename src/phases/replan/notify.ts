/**
 * Replan notifications (docs/notes.md, "Replans in the history"), all in the progress note's history
 * (one note per run, however long the run): each replan's start with the
 * model's reasoning, its completion or failure, and a replan a limit or the
 * loop detection stopped, with why and what the run did instead.
 */
import { addReplanEvent, countReplan } from '../../core/progress/updates.ts';
import type { ProgressState, ReplanEvent, ReplanOverrideFacts } from '../../core/progress/model.ts';
import type { ReplanPoint } from '../../core/hooks.ts';
import type { SettledReplan } from './ledger.ts';
import type { ReplanDecision } from './schema.ts';

/** The progress note's publisher (only `update` is used). */
export interface ProgressSink {
  update(change: (state: ProgressState) => ProgressState): void;
}

/** A replan the model asked for that was not carried out. */
export interface StoppedReplan {
  point: ReplanPoint;
  decision: ReplanDecision;
  override?: ReplanOverrideFacts;
  then: NonNullable<ReplanEvent['then']>;
  at: number;
}

export class Notifier {
  constructor(private readonly progress?: ProgressSink) {}

  /** A replan a limit or the loop detection stopped: a line in the history, with why. */
  notCarriedOut(stopped: StoppedReplan): void {
    const { decision } = stopped;
    this.progress?.update((s) =>
      addReplanEvent(s, {
        event: 'not_carried_out',
        point: stopped.point,
        ...(decision.replan_type !== 'none' ? { kind: decision.replan_type } : {}),
        ...(decision.reasoning ? { reasoning: decision.reasoning } : {}),
        override: stopped.override ?? { kind: 'other' },
        then: stopped.then,
        at: stopped.at,
      }),
    );
  }

  /** Counts a carried-out replan in the progress note. */
  counted(): void {
    this.progress?.update(countReplan);
  }

  /** A replan starts: a line in the progress note's history with the model's reasoning. */
  started(point: ReplanPoint, kind: string | undefined, at: number, reasoning?: string): void {
    this.progress?.update((s) =>
      addReplanEvent(s, {
        event: 'started',
        point,
        ...(kind ? { kind } : {}),
        ...(reasoning ? { reasoning } : {}),
        at,
      }),
    );
  }

  /** A replan completed (the next checkpoint was reached) or failed (the run ended first). */
  settled(replan: SettledReplan | undefined, at: number): void {
    if (!replan) return;
    const event = replan.result === 'success' ? 'completed' : 'failed';
    this.progress?.update((s) =>
      addReplanEvent(s, { event, point: replan.point, at, durationMs: replan.durationMs }),
    );
  }
}
