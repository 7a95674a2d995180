import path from 'node:path';
import type { Config } from '../config/options.ts';
import type { Logger } from '../log/logger.ts';
import type { SectionWriter } from '../log/sections.ts';
import type { Redactor } from '../log/redact.ts';
import type { LlmPort } from '../llm/port.ts';
import type { Gathered, RequestSource } from '../phases/gather/types.ts';
import { reviewHook } from '../phases/review/index.ts';
import type { Plan } from '../phases/plan/schema.ts';
import type { PlanStep } from '../phases/plan/steps.ts';
import type { CompletionAssessment } from '../phases/verify/schema.ts';
import type { ReflectionReply } from '../phases/reflect/schema.ts';
import type { Shell } from '../shell/port.ts';
import type { TaskSpec } from '../task/task-yaml.ts';
import { builtinTools, repoRoot, type Tool, type ToolContext } from '../tools/index.ts';
import type { Clock } from './clock.ts';
import { noReplan, noReview, type RunHooks } from './hooks.ts';
import type { PromptLibrary } from './prompts.ts';
import type {
  ChecklistItem,
  DeliveryReport,
  DeliveryStep,
  EnvironmentHandoff,
  EnvironmentStep,
  ReviewRecord,
  RunHistory,
  RunReporter,
} from './ports.ts';
import { RecordingLlm } from './recording-llm.ts';
import type { ActionRecord, TestRun } from './records.ts';
import { TaskStateMachine } from './state-machine.ts';

/** Everything a run needs from outside, injected (GUIDE #2). */
export interface RunDeps {
  config: Config;
  llm: LlmPort;
  shell: Shell;
  clock: Clock;
  logger: Logger;
  redactor: Redactor;
  /** The host environment; commands only ever see `sandboxEnv(hostEnv)`. */
  hostEnv: Readonly<Record<string, string | undefined>>;
  prompts: PromptLibrary;
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
  /** GitLab collapsible log sections per phase (B4); absent outside CI. */
  sections?: SectionWriter;
  /** Absent: the built-in tools. */
  tools?: Tool[];
  signal?: AbortSignal;
}

/** The run's working memory, filled as phases go. */
export interface RunState {
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
  /** Review verdicts, oldest first (seed 004). */
  reviews: ReviewRecord[];
  /** Executed actions before this index belong to an earlier, replaced checklist. */
  checklistFrom: number;
}

export interface RunContext {
  deps: RunDeps;
  config: Config;
  task: TaskSpec;
  repoDir: string;
  fsm: TaskStateMachine;
  llm: RecordingLlm;
  hooks: RunHooks;
  tools: Tool[];
  toolContext: ToolContext;
  state: RunState;
  startedAt: number;
  logger: Logger;
  signal: AbortSignal | undefined;
}

export async function createRunContext(
  deps: RunDeps,
  task: TaskSpec,
  options: { repoDir: string; maxLoops: number },
): Promise<RunContext> {
  const repoDir = path.resolve(options.repoDir);
  const logger = deps.logger.child({ task_id: task.id });
  const config = deps.config;
  const root = await repoRoot(repoDir);
  const ctx: RunContext = {
    deps,
    config,
    task,
    repoDir,
    fsm: new TaskStateMachine(options.maxLoops, logger, () => deps.clock.now()),
    llm: new RecordingLlm(deps.llm, deps.clock, deps.redactor, deps.signal),
    hooks: { replan: deps.hooks?.replan ?? noReplan, review: deps.hooks?.review ?? noReview },
    tools: deps.tools ?? builtinTools(),
    toolContext: {
      root,
      shell: deps.shell,
      hostEnv: deps.hostEnv,
      commandTimeoutMs: config.execution.command_timeout_sec * 1000,
      maxOutputChars: config.execution.max_tool_output_chars,
      logger,
      redactor: deps.redactor,
      ...(deps.signal ? { signal: deps.signal } : {}),
    },
    state: {
      queue: [],
      checklist: [],
      actions: [],
      reflections: [],
      revisions: 0,
      actionCount: 0,
      stepNumber: 0,
      changedFiles: new Set(),
      tests: [],
      replans: 0,
      reviews: [],
      checklistFrom: 0,
    },
    startedAt: deps.clock.now(),
    logger,
    signal: deps.signal,
  };
  if (!deps.hooks?.review && config.review.enabled) ctx.hooks.review = reviewHook(ctx);
  return ctx;
}
