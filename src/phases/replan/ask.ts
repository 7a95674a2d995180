/** The types shared by the replan manager and the question handlers (questions.ts). */
import type { Config } from '../../config/options.ts';
import type { Clock } from '../../core/clock.ts';
import type { ReplanCheckpoint, ReplanDirective } from '../../core/hooks.ts';
import type { LlmPort } from '../../core/llm-port.ts';
import type { Logger } from '../../log/logger.ts';
import type { AnswerSource } from './answers.ts';
import type { Clarifier, NoteSink } from './clarification.ts';
import type { OverrideKind } from './control.ts';
import type { Recorded, RecordFields, ReplanRecorder } from './ledger.ts';
import type { ReplanLevel, Resolved } from './levels.ts';
import type { Notifier, ProgressSink } from './notify.ts';
import type { ReplanPrompts } from './prompts.ts';
import type { ReplanDecision } from './schema.ts';
import type { ReplanState, ReplanStateStore } from './state.ts';

export interface ReplanManagerOptions {
  config: Config;
  /** Used when a checkpoint does not bring the run's own LLM port. */
  llm?: LlmPort;
  clock: Clock;
  logger: Logger;
  store: ReplanStateStore;
  /** The replan prompts (`replanPrompts` of the run's prompt library). */
  prompts: ReplanPrompts;
  recorder?: ReplanRecorder;
  notes?: NoteSink;
  answers?: AnswerSource;
  progress?: ProgressSink;
}

/** One decision being handled. */
export interface Ask {
  checkpoint: ReplanCheckpoint;
  decision: ReplanDecision;
  resolved: Exclude<Resolved, { kind: 'none' }>;
  trigger: string;
  action: string | undefined;
  started: number;
  signal: AbortSignal | undefined;
}

/** What the question handlers use of the manager. */
export interface QuestionHost {
  readonly o: ReplanManagerOptions;
  readonly state: ReplanState;
  readonly canAsk: boolean;
  readonly prompts: ReplanPrompts;
  readonly clarifier: Clarifier;
  readonly notifier: Notifier;
  now(): number;
  launch(
    ask: Ask,
    level: ReplanLevel,
    options?: { notify?: boolean; directive?: ReplanDirective; count?: boolean },
  ): Promise<ReplanDirective>;
  keep(
    ask: Pick<Ask, 'checkpoint' | 'decision' | 'started'>,
    override?: { kind: OverrideKind; reason: string },
  ): Promise<void>;
  record(replanId: string, at: Recorded, fields: RecordFields): Promise<void>;
  save(): Promise<void>;
  nextId(): string;
  llmFor(checkpoint: ReplanCheckpoint): LlmPort;
  remember(line: string): void;
  historyText(): string;
}
