import path from 'node:path';
import { describeError } from '../errors/catalog.ts';
import {
  CancelledError,
  CommandFailedError,
  LimitReachedError,
  ModelBehaviorError,
} from '../errors/errors.ts';
import { EXIT_SUCCESS, exitCodeFor, type ExitCode } from '../errors/exit-code.ts';
import type { Logger } from '../log/logger.ts';
import { tail } from '../core/shell-port.ts';
import type { TaskSpec } from '../task/task-yaml.ts';
import { canTransition } from '../core/state-machine.ts';
import { driveRounds } from './drive.ts';
import { newTaskContext, type TaskContext } from '../agent-runner/context.ts';
import {
  isDirectory,
  prepareSession,
  type AgentRunnerDeps,
  type Session,
} from './compose-agent-runner.ts';
import type { NextActionReply } from '../agent-runner/protocol.ts';
import { completionRequest, nextActionRequest, planTaskRequest } from '../agent-runner/requests.ts';
import { defaultSettings } from '../agent-runner/settings.ts';
import { taskNotePath, writeTaskNote } from '../agent-runner/task-note.ts';
import { runTaskTest } from '../agent-runner/validate.ts';

export interface AgentRunnerResult {
  state: 'COMPLETE' | 'FAILED';
  taskNotePath: string;
  exitCode: ExitCode;
  /** Why the task failed; print it with `describeError`. */
  error?: unknown;
  context: TaskContext;
}

async function plan(context: TaskContext, session: Session, deps: AgentRunnerDeps): Promise<void> {
  const started = deps.clock.now();
  const reply = await session.meta.call(
    context,
    'plan_task',
    planTaskRequest(context, session.worker.kind),
  );
  context.prdSummary = reply.prd_summary;
  context.acceptanceCriteria = reply.acceptance_criteria.map((c) => ({ ...c, passed: false }));
  deps.logger.info('plan done', {
    component: 'agent-runner',
    criteriaCount: context.acceptanceCriteria.length,
    durationMs: deps.clock.now() - started,
  });
}

/** Carries out the meta's decision in RUNNING; infrastructure failures end the task. */
async function act(
  context: TaskContext,
  session: Session,
  decision: NextActionReply,
  deps: AgentRunnerDeps,
): Promise<void> {
  const { action } = decision.decision;
  if (action === 'mark_complete') return;
  if (action !== 'run_worker' || !decision.worker_call) {
    throw new ModelBehaviorError(`the meta-agent chose an unknown action "${action}"`, {
      purpose: 'execution',
      hint: 'the meta protocol knows only run_worker and mark_complete.',
    });
  }
  const call = decision.worker_call;
  const { task } = context;
  if (call.worker_type !== session.worker.kind) {
    context.notes.push(
      `The meta-agent asked for worker "${call.worker_type}"; the configured ${session.worker.kind} ran instead.`,
    );
  }
  const model = task.worker.model ?? call.model ?? undefined;
  const record = await session.worker.runWorker({
    prompt: call.prompt,
    repoDir: context.repoDir,
    env: session.env,
    maxRunTimeSec: task.worker.maxRunTimeSec,
    ...(model ? { model } : {}),
    ...(deps.signal ? { signal: deps.signal } : {}),
  });
  context.workerRuns.push(record);
  if (record.cancelled) throw new CancelledError('the run was cancelled during a worker run');
  if (record.timedOut) {
    throw new LimitReachedError(
      'runner.worker.max_run_time_sec',
      task.worker.maxRunTimeSec,
      `the ${record.kind} worker timed out after ${task.worker.maxRunTimeSec} s`,
      { hint: 'raise runner.worker.max_run_time_sec in the Task YAML, or split the task.' },
    );
  }
  if (record.exitCode === undefined) {
    throw new CommandFailedError(
      record.kind,
      `the ${record.kind} worker did not run: ${record.error}`,
      {
        outputTail: tail(record.rawOutput, 2000),
      },
    );
  }
}

/** VALIDATING: the test command, then the meta's completion assessment. True when complete. */
async function validate(
  context: TaskContext,
  session: Session,
  deps: AgentRunnerDeps,
): Promise<boolean> {
  const { task } = context;
  if (task.test) {
    context.testResult = await runTaskTest(task.test, context.repoDir, {
      shell: deps.shell,
      logger: deps.logger,
      hostEnv: deps.hostEnv,
      timeoutSec: session.settings.testTimeoutSec,
      killAfterMs: session.settings.killAfterMs,
      maxOutputChars: session.settings.maxRawOutputChars,
      ...(deps.signal ? { signal: deps.signal } : {}),
    });
  }
  const assessment = await session.meta.call(
    context,
    'completion_assessment',
    completionRequest(context),
  );
  context.assessment = assessment;
  const passed = new Set(assessment.details.passed_criteria);
  for (const criterion of context.acceptanceCriteria) criterion.passed = passed.has(criterion.id);
  const allListed = context.acceptanceCriteria.every((c) => c.passed);
  const testsPass = !context.testResult || context.testResult.exitCode === 0;
  const complete = assessment.all_criteria_satisfied && allListed && testsPass;
  deps.logger.info('completion assessed', {
    component: 'agent-runner',
    satisfied: assessment.all_criteria_satisfied,
    passedCriteria: passed.size,
    testsPass,
    complete,
  });
  return complete;
}

/** RUNNING ⇄ VALIDATING through the run's driver, until complete or `max_loops` is spent. */
async function work(context: TaskContext, session: Session, deps: AgentRunnerDeps): Promise<void> {
  const { fsm } = context;
  await driveRounds<'done'>(fsm, {
    async run() {
      const decision = await session.meta.call(
        context,
        'next_action',
        nextActionRequest(context, session.worker.kind),
      );
      context.lastDecision = decision;
      await act(context, session, decision, deps);
      return undefined;
    },
    async validate() {
      if (await validate(context, session, deps)) return { kind: 'complete' };
      if (!fsm.countLoop()) {
        throw new LimitReachedError(
          'runner.max_loops',
          fsm.maxLoops,
          `the task was not complete after ${fsm.maxLoops} loops`,
          { hint: 'raise runner.max_loops in the Task YAML, or narrow the task.' },
        );
      }
      return { kind: 'loop' };
    },
    // nothing to deliver: the worker left its change in the checkout
    complete: async () => ({ kind: 'done', end: 'done' }),
  });
}

function fail(context: TaskContext, error: unknown, logger: Logger): void {
  const description = describeError(error);
  context.failure = description.message;
  context.notes.push(`Failed: ${description.message}`, ...description.details.map((d) => d.trim()));
  if (canTransition(context.fsm.state, 'FAILED')) context.fsm.to('FAILED', description.message);
  logger.error('task failed', { component: 'agent-runner', error: description.message });
}

/**
 * Runs one Task YAML task in AgentRunner mode (docs/agent-runner.md): the meta-agent
 * plans acceptance criteria, then decides run_worker / mark_complete until
 * its completion assessment (and the test command, if any) says the task is
 * done or `max_loops` is spent. The Task Note is written on every outcome.
 */
export async function runAgentRunnerTask(
  task: TaskSpec,
  deps: AgentRunnerDeps,
): Promise<AgentRunnerResult> {
  const settings = { ...defaultSettings(), ...deps.settings };
  const started = deps.clock.now();
  const context = newTaskContext(task, path.resolve(deps.cwd, task.repo), deps.clock, deps.logger);
  deps.redactor.addFromEnv(task.worker.env);
  deps.logger.info('task started', {
    component: 'agent-runner',
    taskId: task.id,
    title: task.title,
    state: context.fsm.state,
    worker: task.worker.kind,
  });
  let error: unknown;
  try {
    context.fsm.to('PLANNING', 'task started');
    const session = await prepareSession(context, deps, settings);
    await plan(context, session, deps);
    await work(context, session, deps);
  } catch (caught) {
    error = caught;
    fail(context, caught, deps.logger);
  }
  context.finishedAt = new Date(deps.clock.now()).toISOString();
  const noteDir = (await isDirectory(context.repoDir)) ? context.repoDir : deps.cwd;
  const notePath = await writeTaskNote(
    context,
    taskNotePath(noteDir, settings.stateDir, task.id),
    deps.redactor,
  );
  deps.logger.info('task finished', {
    component: 'agent-runner',
    finalState: context.fsm.state,
    workerRunsCount: context.workerRuns.length,
    metaCallsCount: context.metaCalls.length,
    durationMs: deps.clock.now() - started,
    taskNotePath: notePath,
  });
  const state = context.fsm.state === 'COMPLETE' ? 'COMPLETE' : 'FAILED';
  return {
    state,
    taskNotePath: notePath,
    exitCode: state === 'COMPLETE' ? EXIT_SUCCESS : exitCodeFor(error),
    ...(error === undefined ? {} : { error }),
    context,
  };
}

export type { AgentRunnerDeps } from './compose-agent-runner.ts';
