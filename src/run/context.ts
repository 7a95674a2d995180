import path from 'node:path';
import { noReplan, noReview } from '../core/hooks.ts';
import type { RunContext, RunDeps } from '../core/run-context.ts';
import { TaskStateMachine } from '../core/state-machine.ts';
import type { TaskSpec } from '../task/task-yaml.ts';
import { RecordingLlm } from '../llm/recording-llm.ts';
import { reviewHook } from '../phases/review/index.ts';
import { builtinTools, repoRoot } from '../tools/index.ts';

/** Builds a run's context from its injected ports; the review phase is wired when `review.enabled`. */
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
      ...(deps.isolation ? { isolation: deps.isolation } : {}),
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
