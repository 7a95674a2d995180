import type { BudgetSpend } from '../../core/budget.ts';
import path from 'node:path';
import type { Config } from '../../config/options.ts';
import { describeError } from '../../errors/catalog.ts';
import { t } from '../../messages/catalog.ts';
import type { Language } from '../../messages/language.ts';
import { inlineCode } from '../../report/markdown.ts';
import type { MetadataStore, PhaseStatusValue } from '../../history/metadata.ts';
import type { StatePaths } from '../../history/paths.ts';
import type { RunRecords } from '../../history/run-records.ts';
import type { Logger } from '../../log/logger.ts';
import type { Redactor } from '../../log/redact.ts';
import { postNote } from '../../report/note-body.ts';
import type { NoteTarget } from '../../core/note-target.ts';
import { renderClarificationNote } from '../../report/notes/clarification-note.ts';
import type { NoteContext } from '../../report/notes/context.ts';
import { renderHumanInterventionNote } from '../../report/notes/human-intervention-note.ts';
import { renderSummaryNote } from '../../report/notes/summary-note.ts';
import type { ProgressPublisher } from '../../report/progress/publisher.ts';
import { runFacts } from '../../core/progress/facts.ts';
import {
  addNotice,
  endPhase,
  recordReview,
  retryStep,
  revisePlan,
  setEnvironment,
  setCancelCause,
  setFacts,
  setPlan,
  startPhase,
  updateItem,
} from '../../core/progress/updates.ts';
import type { PhaseName, PlanChangeKind } from '../../core/progress/model.ts';
import { buildRunResult, writeResultFile } from '../../report/result-file.ts';
import { writeTaskNote } from '../../report/task-note.ts';
import { FinalStateNotWritten } from './final-state.ts';
import type { Clock } from '../../core/clock.ts';
import type { RunOutcome } from '../../core/outcome.ts';
import type { EnvironmentSetupOutcome, RunReporter } from '../../core/ports.ts';
import type {
  ChecklistItem,
  ChecklistStatus,
  PhaseStatus,
  PhaseStep,
  PlanChange,
  ReviewRecord,
} from '../../core/progress/reports.ts';
import { finalState, taskNoteData, usageSummary, validationRuns } from './final.ts';

export interface ProgressReporterOptions {
  publisher: ProgressPublisher;
  target: NoteTarget;
  metadata: MetadataStore;
  runRecords: RunRecords;
  runId: string;
  paths: StatePaths;
  repoDir: string;
  config: Config;
  context: NoteContext;
  redactor: Redactor;
  logger: Logger;
  clock: Clock;
  /** Turns the Task Note's path into a link (CI: the artifact URL). */
  artifactUrl?: (file: string) => string | undefined;
}

const METADATA_STATUS: Record<PhaseStatus, PhaseStatusValue> = {
  running: 'in_progress',
  done: 'completed',
  failed: 'failed',
  skipped: 'skipped',
};

const CHANGE_KIND: Record<Exclude<PlanChange, 'initial'>, PlanChangeKind> = {
  reflection: 'reflection',
  retry: 'retry',
  replan: 'partial_replan',
  action_regeneration: 'action_regeneration',
  task_redecomposition: 'task_redecomposition',
  goal_revision: 'goal_revision',
  review: 'plan_revision',
  validation: 'plan_revision',
};

/** A checklist item in the note's words: mr-agent's own steps come from the catalog. */
function toItem(item: ChecklistItem, language: Language) {
  const feedback = item.reviewFeedback;
  const description =
    feedback === undefined
      ? item.label
      : feedback.trim() === ''
        ? t(language, 'item.reviewFeedbackNone')
        : t(language, 'item.reviewFeedback', { feedback });
  return { id: item.id, description, status: item.status };
}

/** The notice when run files could not be written; the error's English text as code elsewhere. */
function filesNotWritten(language: Language, error: string): string {
  return t(language, 'notice.filesNotWritten', {
    error: language === 'en' ? error : inlineCode(error),
  });
}

/**
 * The run's reporter over the progress note publisher, `metadata.json`
 *, `runs.json`, and at the end the Task Note, `result.json`
 * and the separate notes of H2.
 */
export class ProgressReporter implements RunReporter {
  /** State-file writes in flight; `final()` waits for them so none is lost at exit. */
  private readonly pending = new Set<Promise<unknown>>();

  constructor(private readonly o: ProgressReporterOptions) {}

  private now(): number {
    return this.o.clock.now();
  }

  private background(what: string, work: Promise<unknown>): void {
    const tracked = work
      .catch((error: unknown) =>
        this.o.logger.warn('state file not updated', { what, error: (error as Error).message }),
      )
      .finally(() => this.pending.delete(tracked));
    this.pending.add(tracked);
  }

  /** Resolves when every state-file write started so far has finished. */
  async settled(): Promise<void> {
    await Promise.all([...this.pending]);
  }

  budget(spend: BudgetSpend): void {
    this.o.publisher.update((s) => ({ ...s, budget: spend }));
  }

  phase(phase: PhaseName, status: PhaseStatus, detail?: string): void {
    const at = this.now();
    this.o.publisher.update((s) =>
      status === 'running' ? startPhase(s, phase, at) : endPhase(s, phase, status, at, detail),
    );
    const metadataStatus = METADATA_STATUS[status];
    this.background(
      'metadata',
      this.o.metadata.updatePhase(
        phase,
        status === 'running'
          ? { status: metadataStatus, current_step: 'execute' }
          : { status: metadataStatus },
      ),
    );
  }

  step(phase: PhaseName, step: PhaseStep, retryCount: number): void {
    this.background(
      'metadata',
      this.o.metadata.updatePhase(phase, { current_step: step, retry_count: retryCount }),
    );
  }

  review(record: ReviewRecord): void {
    this.o.publisher.update((s) =>
      recordReview(s, {
        phase: record.phase,
        result: record.result,
        attempt: record.attempt,
        maxAttempts: record.maxAttempts,
        ...(record.feedback.trim() ? { feedback: record.feedback } : {}),
      }),
    );
  }

  plan(
    items: readonly ChecklistItem[],
    info: { revision: number; comment: string; change: PlanChange },
  ): void {
    const at = this.now();
    const language = this.o.context.language ?? 'en';
    const mapped = items.map((item) => toItem(item, language));
    this.o.publisher.update((s) =>
      info.change === 'initial' && !s.plan
        ? setPlan(s, mapped, at)
        : info.change === 'retry'
          ? retryStep(s, mapped)
          : revisePlan(s, {
              items: mapped,
              reason: this.revisionReason(info),
              change: info.change === 'initial' ? 'full_replan' : CHANGE_KIND[info.change],
              at,
            }),
    );
  }

  /** Why the plan changed, in the note's language where the reason is mr-agent's own. */
  private revisionReason(info: { comment: string; change: PlanChange }): string {
    if (info.change === 'review') return t(this.o.context.language ?? 'en', 'plan.reason.review');
    return info.comment;
  }

  item(id: string, status: ChecklistStatus): void {
    this.o.publisher.update((s) => updateItem(s, id, status));
  }

  comment(text: string): void {
    this.o.logger.debug('model comment', { comment: text.slice(0, 300) });
  }

  notice(text: string): void {
    this.o.publisher.update((s) => addNotice(s, text));
  }

  async environment(outcome: EnvironmentSetupOutcome): Promise<void> {
    const { handoff } = outcome;
    this.o.publisher.update((s) =>
      setEnvironment(s, {
        name: handoff.environment_name,
        status:
          handoff.setup_status === 'success'
            ? 'ready'
            : handoff.setup_status === 'skipped'
              ? 'skipped'
              : 'failed_with_warnings',
        setupCommands: outcome.setupCommands,
        verificationsPassed: outcome.verificationsPassed,
        verificationsTotal: outcome.verificationsTotal,
        durationMs: outcome.durationMs,
        ...(outcome.detail ? { detail: outcome.detail } : {}),
        ...(outcome.olderNode
          ? { olderNode: { major: outcome.olderNode.major, current: outcome.olderNode.current } }
          : {}),
      }),
    );
    if (outcome.failureNote)
      await postNote(this.o.target, outcome.failureNote, { redactor: this.o.redactor });
  }

  /**
   * The final report. Every step is attempted whatever happened to the ones
   * before: a full disk that refuses the Task Note must not keep the progress
   * note at "running". The files in the job's folder come first
   * (Task Note, result.json, runs.json), so they are there whatever GitLab
   * does; then the notes. A progress note whose final state could not be
   * written is a `FinalStateNotWritten` (the job exits non-zero, O4);
   * otherwise the first failure is rethrown at the end.
   */
  async final(outcome: RunOutcome): Promise<void> {
    const o = this.o;
    const state = finalState(outcome);
    const usage = usageSummary(outcome);
    const failures: unknown[] = [];
    const step = async <T>(what: string, work: () => Promise<T>): Promise<T | undefined> => {
      try {
        return await work();
      } catch (error) {
        failures.push(error);
        o.logger.error('final report step failed', { step: what, error: (error as Error).message });
        return undefined;
      }
    };
    const taskNote = await step('task note', () =>
      writeTaskNote(o.paths.stateDir, taskNoteData(outcome), o.redactor),
    );
    const relativeNote = taskNote ? path.relative(o.repoDir, taskNote) : undefined;
    const writeResult = (exitCode: RunOutcome['exitCode']) =>
      step('result.json', () =>
        writeResultFile(
          o.paths.result,
          this.result({ ...outcome, exitCode }, state, relativeNote),
          o.redactor,
        ),
      );
    await writeResult(outcome.exitCode);
    await step('run record', () =>
      o.runRecords.finish(o.runId, state, outcome.summary.slice(0, 500)),
    );
    const noteUrl = relativeNote ? o.artifactUrl?.(relativeNote) : undefined;
    o.publisher.update((s) => {
      let next = setFacts(
        { ...s, usage },
        runFacts(outcome, noteUrl ? { taskNoteUrl: noteUrl } : {}),
      );
      if (outcome.cancelCause) next = setCancelCause(next, outcome.cancelCause);
      if (failures.length > 0)
        next = addNotice(
          next,
          filesNotWritten(next.language ?? 'en', describeError(failures[0]).message),
        );
      return next;
    });
    await step('separate notes', () => this.postSeparateNotes(outcome, noteUrl));
    const written = await o.publisher.finish({ state, summary: outcome.summary });
    // no closing reply while a question or a person is awaited: the ❓ or 🙋 note is the news
    //; nor after a patch note, which is the closing note then and @mentions the requester
    const patched = outcome.delivery?.status === 'patch-posted';
    if (state !== 'awaiting_answer' && state !== 'needs_human' && state !== 'paused' && !patched)
      await step('summary note', () =>
        postNote(o.target, renderSummaryNote(o.publisher.current, this.summaryLinks()), {
          redactor: o.redactor,
        }),
      );
    await this.settled();
    if (!written) {
      const failed = new FinalStateNotWritten(state);
      // result.json tells the same exit code as the job
      if (outcome.exitCode === 0) await writeResult(1);
      throw failed;
    }
    if (failures.length > 0) throw failures[0];
  }

  private result(outcome: RunOutcome, state: ReturnType<typeof finalState>, taskNote?: string) {
    const o = this.o;
    return buildRunResult({
      taskId: outcome.taskId,
      status: state,
      exitCode: outcome.exitCode,
      summary: outcome.summary,
      startedAt: outcome.startedAt,
      finishedAt: outcome.finishedAt,
      validation: validationRuns(outcome),
      usage: usageSummary(outcome),
      ...(outcome.budget ? { budget: outcome.budget } : {}),
      ...(taskNote ? { taskNote } : {}),
      ...(o.context.jobId ? { jobId: o.context.jobId } : {}),
      ...(o.context.pipelineId ? { pipelineId: o.context.pipelineId } : {}),
    });
  }

  private summaryLinks() {
    const url = this.o.publisher.noteUrl;
    const requester = this.o.context.requester;
    return { ...(url ? { progressNote: url } : {}), ...(requester ? { requester } : {}) };
  }

  /** The 🙋 and ❓ notes; the progress note links them (their URLs reach it through the target). */
  private async postSeparateNotes(outcome: RunOutcome, taskNoteUrl: string | undefined) {
    const o = this.o;
    const post = (body: string) => postNote(o.target, body, { redactor: o.redactor });
    if (outcome.completion.phase === 'completion' && 'status' in outcome.completion)
      await post(
        renderHumanInterventionNote(outcome.completion, o.context, {
          ...(taskNoteUrl ? { taskNoteUrl } : {}),
        }),
      );
    if (outcome.clarification && !outcome.clarificationPosted) {
      // the run has ended: it waits for a reply (resuming on it is F4's part)
      await post(
        renderClarificationNote(
          {
            questions: outcome.clarification.clarification_needed,
            context: outcome.clarification.message,
            assumptions: [],
            waitMinutes: 0,
            autoAssume: false,
          },
          o.context,
        ),
      );
    }
  }
}
