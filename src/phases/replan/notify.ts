/**
 * Notifications of seed 003 §11.1–§11.2: the 🔁 note when the model decides
 * on a replan (carried out, or overridden by a limit or the loop detection);
 * the replan count, and each replan's start, completion and failure, in the
 * progress note's history — no note of their own (the one-note rule). A
 * failed post is logged; it never stops the run.
 */
import type { Logger } from '../../log/logger.ts';
import { postNote } from '../../report/note-body.ts';
import { renderReplanNote } from '../../report/notes/replan-note.ts';
import { addReplanEvent, countReplan } from '../../core/progress/updates.ts';
import type { ProgressState } from '../../core/progress/model.ts';
import type { ReplanPoint } from '../../core/hooks.ts';
import type { NoteSink } from './clarification.ts';
import type { SettledReplan } from './ledger.ts';
import type { ReplanDecision } from './schema.ts';

/** The progress note's publisher (only `update` is used). */
export interface ProgressSink {
  update(change: (state: ProgressState) => ProgressState): void;
}

export interface ReplanNotice {
  point: ReplanPoint;
  decision: ReplanDecision;
  level?: number;
  executed: boolean;
  overrideReason?: string;
  at: number;
}

export class Notifier {
  constructor(
    private readonly logger: Logger,
    private readonly notes?: NoteSink,
    private readonly progress?: ProgressSink,
  ) {}

  /** Posts the 🔄 note. */
  async decided(notice: ReplanNotice): Promise<void> {
    if (!this.notes) return;
    const { decision } = notice;
    const body = renderReplanNote(
      {
        phase: notice.point,
        confidence: decision.confidence,
        reasoning: decision.reasoning,
        issuesFound: [...decision.issues_found, ...(decision.issues_identified ?? [])],
        recommendedActions: decision.recommended_actions,
        ...(decision.replan_type !== 'none' ? { replanType: decision.replan_type } : {}),
        ...(notice.level !== undefined ? { replanLevel: notice.level } : {}),
        executed: notice.executed,
        ...(notice.overrideReason ? { overrideReason: notice.overrideReason } : {}),
        at: notice.at,
      },
      this.notes.context,
    );
    try {
      await postNote(this.notes.target, body, { redactor: this.notes.redactor });
    } catch (error) {
      this.logger.warn('replan note not posted', { error: (error as Error).message });
    }
  }

  /** Counts a carried-out replan in the progress note. */
  counted(): void {
    this.progress?.update(countReplan);
  }

  /** A replan starts (seed 003 §11.1): a line in the progress note's history, not a note. */
  started(point: ReplanPoint, kind: string | undefined, at: number): void {
    this.progress?.update((s) =>
      addReplanEvent(s, { event: 'started', point, ...(kind ? { kind } : {}), at }),
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
