/**
 * The `ReplanManager`, as the run's `ReplanHook` (docs/replanning.md): at
 * each checkpoint it asks the model for a decision, applies the controls
 * (limits, overrides, confidence bands, loop detection, escalation), runs
 * the clarification flow, records every decision in the history, keeps its
 * state across a pause and notifies the people on the request. The run carries out the directive it returns.
 */
import type { LlmPort } from '../../core/llm-port.ts';
import type { UnclearGoal } from '../../core/plan.ts';
import type {
  ReplanCheckpoint,
  ReplanDirective,
  ReplanHook,
  ReplanPoint,
  RunEndInfo,
} from '../../core/hooks.ts';
import { Clarifier, answersText } from './clarification.ts';
import { countReplan, evaluate, type OverrideKind, type Verdict } from './control.ts';
import { actionKey, directiveFor, triggerKey } from './directives.ts';
import { decisionFailure } from './escalation.ts';
import { redonePoints, resolveDecision, type ReplanLevel } from './levels.ts';
import { Notifier } from './notify.ts';
import { buildDecisionMessages } from './prompt-builder.ts';
import type { ReplanPrompts } from './prompts.ts';
import type { Ask, QuestionHost, ReplanManagerOptions } from './ask.ts';
import { handleBlocked, handleClarify, handleConfirm, handleUnclearGoal } from './questions.ts';
import { decisionSchemaFor, type ReplanDecision } from './schema.ts';
import { ReplanLedger, type Recorded, type RecordFields } from './ledger.ts';
import { countersOf, type ReplanState } from './state.ts';
import { historyText } from './summary.ts';

export type { Recorded, ReplanRecorder } from './ledger.ts';
export type { Ask, ReplanManagerOptions } from './ask.ts';

const CONTINUE: ReplanDirective = { kind: 'continue' };
const PLANNING: ReadonlySet<ReplanPoint> = new Set([
  'goal_understanding',
  'task_decomposition',
  'action_sequence',
]);

export class ReplanManager implements ReplanHook, QuestionHost {
  readonly ledger: ReplanLedger;
  /** After a restart, only the redone planning phases are judged again. */
  private askOnly: ReadonlySet<ReplanPoint> | undefined;
  /** The total limit was reached: no more decisions are requested. */
  private exhausted = false;
  /** Answers found when resuming a paused run, applied at the first checkpoint. */
  private resumeWith: string | undefined;
  readonly recent: string[] = [];
  readonly prompts: ReplanPrompts;
  readonly clarifier: Clarifier;
  readonly notifier: Notifier;

  private constructor(readonly o: ReplanManagerOptions) {
    this.ledger = new ReplanLedger(o.store, o.clock, o.logger, o.recorder);
    this.prompts = o.prompts;
    this.clarifier = new Clarifier({
      config: o.config,
      clock: o.clock,
      logger: o.logger,
      ...(o.notes ? { notes: o.notes } : {}),
      ...(o.answers ? { answers: o.answers } : {}),
    });
    this.notifier = new Notifier(o.progress);
  }

  /** Opens the manager: a paused run's state is continued, otherwise it starts fresh. */
  static async open(options: ReplanManagerOptions): Promise<ReplanManager> {
    const manager = new ReplanManager(options);
    await manager.load();
    return manager;
  }

  /** The persisted state (counters, in flight, open question). */
  get state(): ReplanState {
    return this.ledger.state;
  }

  get canAsk(): boolean {
    return this.o.notes !== undefined;
  }

  now(): number {
    return this.o.clock.now();
  }

  async decide(checkpoint: ReplanCheckpoint, signal?: AbortSignal): Promise<ReplanDirective> {
    this.notifier.settled(await this.ledger.settle('success', checkpoint.plan), this.now());
    const point = checkpoint.point;
    if (this.resumeWith !== undefined) return this.resume(checkpoint);
    const skip = this.askOnly !== undefined && PLANNING.has(point) && !this.askOnly.has(point);
    if (!PLANNING.has(point) || point === 'action_sequence') this.askOnly = undefined;
    if (skip || this.exhausted) return CONTINUE;
    const started = this.now();
    const decision = await this.request(checkpoint, signal);
    if (!decision) return CONTINUE;
    const resolved = resolveDecision(point, decision);
    if (resolved.kind === 'none') {
      await this.keep({ checkpoint, decision, started });
      return CONTINUE;
    }
    const ask: Ask = {
      checkpoint,
      decision,
      resolved,
      trigger: triggerKey(checkpoint, resolved),
      action: actionKey(checkpoint),
      started,
      signal,
    };
    const verdict = evaluate({
      resolved,
      confidence: decision.confidence,
      trigger: ask.trigger,
      ...(ask.action ? { action: ask.action } : {}),
      counters: countersOf(this.state),
      config: this.o.config,
    });
    return this.act(ask, verdict);
  }

  private async act(ask: Ask, verdict: Verdict): Promise<ReplanDirective> {
    switch (verdict.kind) {
      case 'keep':
        await this.keep(ask, verdict.override);
        return CONTINUE;
      case 'execute':
        if (verdict.warning)
          this.o.logger.warn('replan with moderate confidence', {
            point: ask.checkpoint.point,
            confidence: ask.decision.confidence,
          });
        return this.launch(ask, ask.resolved.kind === 'replan' ? ask.resolved.level : 5);
      case 'blocked':
        if (verdict.override.kind === 'total_limit') this.exhausted = true;
        return handleBlocked(this, ask, verdict.override);
      case 'clarify':
        return handleClarify(this, ask);
      case 'confirm':
        return handleConfirm(this, ask);
    }
  }

  /**
   * Carries a replan out: counts it, records it as pending (its result is
   * recorded at the next checkpoint), notifies, and returns the directive.
   */
  async launch(
    ask: Ask,
    level: ReplanLevel,
    options: { notify?: boolean; directive?: ReplanDirective; count?: boolean } = {},
  ): Promise<ReplanDirective> {
    const { checkpoint, decision } = ask;
    const directive = options.directive ?? directiveFor(checkpoint.point, level, decision);
    const resolved =
      ask.resolved.kind === 'replan' && ask.resolved.level !== level
        ? ({ ...ask.resolved, level } as const)
        : ask.resolved;
    if (options.count !== false)
      this.state.counters = countReplan(countersOf(this.state), resolved, ask);
    const replanId = this.nextId();
    await this.ledger.launch(replanId, ask, decision.confidence);
    await this.record(replanId, ask, { executed: true, result: 'pending' });
    this.notifier.counted();
    this.notifier.started(
      checkpoint.point,
      decision.replan_type !== 'none' ? decision.replan_type : undefined,
      this.now(),
      options.notify !== false ? decision.reasoning : undefined,
    );
    if (directive.kind === 'replan') this.askOnly = redonePoints(level);
    this.remember(`${checkpoint.point}: ${directive.kind} (level ${level}) carried out`);
    this.o.logger.info('replan decided', {
      point: checkpoint.point,
      level,
      directive: directive.kind,
      confidence: decision.confidence,
      total: this.state.counters.total,
    });
    return directive;
  }

  /** Records a decision that changes nothing (no replan asked, or overridden). */
  async keep(
    ask: Pick<Ask, 'checkpoint' | 'decision' | 'started'>,
    override?: { kind: OverrideKind; reason: string },
  ): Promise<void> {
    this.state.latest_decision = ask.decision as unknown as Record<string, unknown>;
    const id = this.nextId();
    await this.save();
    await this.record(id, ask, {
      executed: false,
      result: 'skipped',
      ...(override ? { override: override.reason } : {}),
    });
    if (override) {
      this.remember(`${ask.checkpoint.point}: replan not carried out (${override.reason})`);
      this.o.logger.info('replan overridden', {
        point: ask.checkpoint.point,
        override: override.kind,
        reason: override.reason,
        confidence: ask.decision.confidence,
      });
    }
  }

  /** A resumed run's first checkpoint: plan again with the answers that arrived while paused. */
  private async resume(checkpoint: ReplanCheckpoint): Promise<ReplanDirective> {
    const reason = this.resumeWith!;
    this.resumeWith = undefined;
    const decision = (this.state.latest_decision ?? {}) as unknown as ReplanDecision;
    const ask: Ask = {
      checkpoint,
      decision: { ...decision, confidence: decision.confidence ?? 1 },
      resolved: { kind: 'clarify', bucket: 'clarifications' },
      trigger: `${checkpoint.point}:resume`,
      action: undefined,
      started: this.now(),
      signal: undefined,
    };
    const directive: ReplanDirective = { kind: 'replan', from: 'goal_understanding', reason };
    return this.launch(ask, 5, { notify: false, directive, count: false });
  }

  /** Asks the model; an unusable reply means "no replan" and is logged and recorded. */
  private async request(
    checkpoint: ReplanCheckpoint,
    signal: AbortSignal | undefined,
  ): Promise<ReplanDecision | undefined> {
    const point = checkpoint.point;
    const llm = this.llmFor(checkpoint);
    const started = this.now();
    try {
      const reply = await llm.json({
        purpose: `replan.${point}`,
        role: 'reflection',
        messages: await buildDecisionMessages(this.prompts, checkpoint, this.historyText()),
        schema: decisionSchemaFor(point),
        schemaName: 'replan_decision',
        ...(signal ? { signal } : {}),
      });
      return reply.value.replan_decision as ReplanDecision;
    } catch (error) {
      if (!decisionFailure(error, signal)) throw error;
      const message = (error as Error).message;
      this.o.logger.warn('replan decision unusable; keeping the plan', { point, error: message });
      const id = this.nextId();
      await this.save();
      await this.record(
        id,
        { checkpoint, decision: { error: message } as unknown as ReplanDecision, started },
        { executed: false, result: 'skipped', override: `unparseable decision: ${message}` },
      );
      return undefined;
    }
  }

  async unclearGoal(unclear: UnclearGoal, signal?: AbortSignal): Promise<ReplanDirective> {
    this.notifier.settled(await this.ledger.settle('success'), this.now());
    return handleUnclearGoal(this, unclear, signal);
  }

  async ended(end: RunEndInfo): Promise<void> {
    const settled = await this.ledger.end(end.reason);
    // a replan still in flight when the run completes did its work; otherwise it failed
    const result = end.state === 'COMPLETE' ? 'success' : 'failure';
    this.notifier.settled(settled && { ...settled, result }, this.now());
  }

  /** Replan statistics: the decisions so far and the counters the limits read. */
  statistics() {
    return { decisions: this.state.decisions, counters: countersOf(this.state) };
  }

  record(replanId: string, at: Recorded, fields: RecordFields): Promise<void> {
    return this.ledger.record(replanId, at, fields);
  }

  save(): Promise<void> {
    return this.ledger.save();
  }

  nextId(): string {
    return this.ledger.nextId();
  }

  llmFor(checkpoint: ReplanCheckpoint): LlmPort {
    const llm = checkpoint.run?.llm ?? this.o.llm;
    if (!llm) throw new Error('internal: the replan manager has no LLM port');
    return llm;
  }

  remember(line: string): void {
    this.recent.push(line);
    if (this.recent.length > 10) this.recent.shift();
  }

  historyText(): string {
    return historyText(this.o.config, countersOf(this.state), this.recent);
  }

  /** Continues a paused run's state; answers that arrived meanwhile are used at the first checkpoint. */
  private async load(): Promise<void> {
    const resumed = await this.ledger.load();
    const open = this.state.open_question;
    if (resumed) this.o.logger.info('replan state resumed', { total: this.state.counters.total });
    if (resumed && open) {
      const answers = await this.clarifier.answersTo(open.note_id);
      if (answers.length > 0) {
        this.resumeWith = await answersText(this.prompts, open, answers);
        await this.clarifier.markAnswered(open.note_id, answers);
        delete this.state.open_question;
        await this.save();
      }
    }
    this.exhausted =
      this.state.counters.total >= this.o.config.planning.replanning.global.max_total_replans;
  }
}
