import type { RunBudget } from './budget.ts';
import type { CheckpointStore } from './checkpoint.ts';
import type { ConversationPort } from './conversation.ts';
import type { Config } from '../config/options.ts';
import type { Logger } from '../log/logger.ts';
import type { SectionWriter } from '../log/sections.ts';
import type { Redactor } from '../log/redact.ts';
import type { LlmPort } from './llm-port.ts';
import type { Gathered, RequestSource } from './gathered.ts';
import type { Plan } from './plan.ts';
import type { PlanStep } from './plan-steps.ts';
import type { CompletionAssessment } from './completion.ts';
import type { ReflectionReply } from './reflection.ts';
import type { Shell } from './shell-port.ts';
import type { TaskSpec } from '../task/task-yaml.ts';
import type { Tool, ToolContext } from './tool.ts';
import type { Clock } from './clock.ts';
import type { CommandIsolation } from './isolation.ts';
import type { RunHooks } from './hooks.ts';
import type { PromptLibrary } from './prompts.ts';
import type { Language } from '../messages/language.ts';
import type { CheckoutPort } from './checkout-port.ts';
import type { MergeRequestReview } from './merge-request-review.ts';
import type {
  ActionWorker,
  DeliveryStep,
  EarlierPlan,
  EnvironmentStep,
  RunHistory,
  RunReporter,
} from './ports.ts';
import type { EnvironmentHandoff } from './environment.ts';
import type { ActionRecord, DeliveryReport, MetaCallLog, TestRun, TokenTotals } from './records.ts';
import type { ChecklistItem, ReviewRecord } from './progress/reports.ts';
import type { TaskStateMachine } from './state-machine.ts';

/** The ports and services every mode of the agent is given (GUIDE #2). */
export interface PortDeps {
  llm: LlmPort;
  shell: Shell;
  clock: Clock;
  logger: Logger;
  redactor: Redactor;
  /** The host environment; commands only ever see `sandboxEnv(hostEnv)` or an allow-list of it. */
  hostEnv: Readonly<Record<string, string | undefined>>;
}

/**
 * The checkout's own code must not run (a fork's merge request, docs/security.md):
 * `reason` says why, in plain words for the notes and the model.
 */
export interface CodeNotRun {
  reason: string;
  /** Which notice the progress note shows (message catalog), and the protected ref for the second. */
  notice: { kind: 'fork-patch' } | { kind: 'fork-protected-ref'; ref: string };
}

/** Everything a run needs from outside, injected (GUIDE #2). */
export interface RunDeps extends PortDeps {
  config: Config;
  prompts: PromptLibrary;
  /**
   * The notes' language, decided once for the run by the composition root
   * (src/run/compose.ts): everything the run writes for people uses it.
   * Absent (runs built by hand): `notes.language`, `auto` following the task.
   */
  language?: Language;
  /** Git and the checkout's files (read as the command user once its commands may have run). */
  checkout: CheckoutPort;
  reporter: RunReporter;
  history: RunHistory;
  /** Absent: no detection, and setup is skipped (reported as such). */
  environment?: EnvironmentStep;
  /** Absent: nothing is committed or pushed (local runs). */
  delivery?: DeliveryStep;
  /** Absent: the request is the task itself (local runs). */
  request?: RequestSource;
  /** Absent `review`: the review phase (src/phases/review/) when `review.enabled`. */
  hooks?: Partial<RunHooks>;
  /** GitLab collapsible log sections per phase; absent outside CI. */
  sections?: SectionWriter;
  /** Absent: the built-in tools. */
  tools?: Tool[];
  /**
   * Who runs the commands taken from the model or the repository
   * (docs/security.md); set by the composition root. Absent: the agent's own user.
   */
  isolation?: CommandIsolation;
  /** An external coding CLI that carries out the actions; absent: the builtin tool loop. */
  worker?: ActionWorker;
  signal?: AbortSignal;
  /**
   * Set: none of the checkout's code runs — no environment setup, no test
   * commands, no `run_command`, no external worker (composed in
   * src/run/compose.ts; verification skips its tests).
   */
  codeNotRun?: CodeNotRun;
  /**
   * Whether someone asked the run to pause (`/agent pause`); asked before
   * each action. Absent: the run cannot be paused (local runs).
   */
  pauseRequested?(): Promise<boolean>;
  /** The run's spend limits; the LLM port refuses a call that would pass them. Absent: none. */
  budget?: RunBudget;
  /**
   * What people say on the merge request or issue while the run works,
   * heard at each checkpoint. Absent: the run hears nobody (local runs).
   */
  conversation?: ConversationPort;
  /** The merge request a review-only run (`/agent review`) reviews; absent for every other run. */
  mergeRequestReview?: MergeRequestReview;
  /** Where the run keeps its checkpoint after every action. Absent: none is kept (local runs). */
  checkpoints?: CheckpointStore;
}

/** The run's working memory, filled as phases go. */
export interface RunState {
  /** The run reviewed a merge request (`/agent review`) instead of changing it. */
  reviewOnly?: boolean;
  gathered?: Gathered;
  plan?: Plan;
  /** Actions still to run, in order. */
  queue: PlanStep[];
  /** The checklist shown in the note: finished items, then the queue. */
  checklist: ChecklistItem[];
  actions: ActionRecord[];
  reflections: ReflectionReply[];
  revisions: number;
  /** Actions executed so far (the reflection interval counts these). */
  actionCount: number;
  stepNumber: number;
  changedFiles: Set<string>;
  environment?: EnvironmentHandoff;
  tests: TestRun[];
  assessment?: CompletionAssessment;
  /** The execution system prompt, rendered once (it is the same for every action). */
  executionSystem?: string;
  /** Replans decided through the replan hook (bounded by max_total_replans). */
  replans: number;
  delivery?: DeliveryReport;
  /** Review verdicts, oldest first. */
  reviews: ReviewRecord[];
  /** Executed actions before this index belong to an earlier, replaced checklist. */
  checklistFrom: number;
  /** The earlier plan this run took over, with its revisions and reflections. */
  reusedPlan?: EarlierPlan;
  /** Someone asked the run not to push: it keeps the change as a patch instead. */
  stopBeforeDelivery?: { by: string };
  /** The earlier run's checkpoint this run went on from: removed once this run ends. */
  resumedFrom?: string;
}

/**
 * The run's view of the LLM port: every call carries the run's abort signal,
 * and what the run used is kept for the Task Note and `result.json`.
 */
export interface RecordedLlm extends LlmPort {
  /** Tokens in all and per purpose. */
  readonly tokens: TokenTotals;
  /** The JSON ("meta") calls, in order. */
  readonly metaCalls: MetaCallLog[];
  /** Characters sent per call, in order (prompt size per step). */
  readonly promptChars: Array<{ purpose: string; chars: number; promptTokens: number }>;
}

export interface RunContext {
  deps: RunDeps;
  config: Config;
  task: TaskSpec;
  repoDir: string;
  fsm: TaskStateMachine;
  llm: RecordedLlm;
  hooks: RunHooks;
  tools: Tool[];
  toolContext: ToolContext;
  state: RunState;
  startedAt: number;
  logger: Logger;
  signal: AbortSignal | undefined;
}
