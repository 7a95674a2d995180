import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CancelledError, UsageError } from '../errors/errors.ts';
import { statePaths } from '../history/paths.ts';
import type { Logger } from '../log/logger.ts';
import type { Redactor } from '../log/redact.ts';
import { detectEnvironment } from '../phases/environment/detect/detect.ts';
import { selectEnvironment } from '../phases/environment/select.ts';
import type { Plan } from '../phases/plan/schema.ts';
import { exitCodeForSignal, type TerminationSignal } from '../report/termination.ts';
import { runTask } from '../run/orchestrator.ts';
import type { RunOutcome } from '../run/outcome.ts';
import { CHILD_PIPELINE_FILE, forwardedVariables, renderChildPipeline } from './child-pipeline.ts';
import { readHandoff, writeHandoff } from './handoff.ts';
import { finishWithNothingToDo } from './nothing-to-do.ts';
import {
  issueIdOf,
  lastPlan,
  restoreHistory,
  writeRequestRecord,
  type RestoredHistory,
} from './past-history.ts';
import type { PreparedRun } from './prepare.ts';
import { openSession, type CiSession, type SessionServices } from './session.ts';
import { planJob, resumeWork } from './two-step.ts';

export interface CarryOutDeps {
  services: SessionServices;
  logger: Logger;
  redactor: Redactor;
  /** A run id for this job (the trace id). */
  runId: string;
  stdout: { write(text: string): unknown };
  onSignal?(handler: (signal: string) => void): () => void;
}

const PLAN_ONLY_SUMMARY = (prefix: string) =>
  `The plan is posted. Comment \`${prefix} approve\` to carry it out as written.`;

/** The task text: the instruction, or for `retry` the last request's (with its history). */
function taskText(run: PreparedRun, restored: RestoredHistory): string {
  if (run.request.command === 'retry') {
    const last = restored.lastRequest;
    if (!last) throw new UsageError('there is no earlier agent run here to retry');
    return last.task.text;
  }
  const text = run.request.task.trim();
  if (text) return text;
  const target = run.request.target;
  if (target.kind !== 'none')
    return `Work on ${target.kind === 'merge_request' ? '!' : '#'}${target.iid}`;
  throw new UsageError('the request has no task text', { where: 'MR_AGENT_TASK' });
}

async function approvedPlan(run: PreparedRun, session: CiSession, logger: Logger): Promise<Plan> {
  const issueId = issueIdOf(run.project.id, run.request);
  const plan = issueId ? await lastPlan(session.paths, issueId, logger) : undefined;
  if (!plan) {
    throw new UsageError('there is no posted plan to approve here', {
      hint: `comment \`${run.config.trigger.command_prefix} plan <instruction>\` first.`,
    });
  }
  return plan;
}

/** Aborts the run on SIGTERM/SIGINT (job cancelled or timed out, M6); remembers the signal. */
function watchSignals(deps: CarryOutDeps, controller: AbortController) {
  const seen: { signal?: TerminationSignal } = {};
  const remove = deps.onSignal?.((signal) => {
    seen.signal = (
      ['SIGTERM', 'SIGINT', 'SIGHUP'].includes(signal) ? signal : 'SIGTERM'
    ) as TerminationSignal;
    controller.abort(new CancelledError(`received ${signal}`));
  });
  return { seen, remove: remove ?? (() => undefined) };
}

function exitCode(session: CiSession, outcome: RunOutcome, signal: TerminationSignal | undefined) {
  if (signal) return exitCodeForSignal(signal);
  const delivery = session.delivery.result();
  if (delivery && !delivery.ok) return 1;
  return outcome.exitCode;
}

async function prepareSession(run: PreparedRun, deps: CarryOutDeps) {
  const paths = statePaths(
    run.context.projectDir,
    run.config.state.directory,
    run.config.planning.history.directory,
  );
  const restored = await restoreHistory({
    gitlab: run.gitlab,
    projectId: run.project.id,
    request: run.request,
    botUserId: run.bot.id,
    currentJobId: run.context.job.id,
    paths,
    logger: deps.logger,
  });
  const text = taskText(run, restored);
  const session = await openSession(run, {
    services: deps.services,
    logger: deps.logger,
    redactor: deps.redactor,
    task: { text },
    runId: deps.runId,
  });
  await writeRequestRecord(session.paths, {
    request: run.request,
    task: { id: session.task.id, text },
    jobId: run.context.job.id,
  });
  return session;
}

const input = (session: CiSession) => ({
  task: session.task,
  repoDir: session.task.repo,
  maxLoops: session.task.maxLoops,
});

/** `--step all`: the whole run in this job (a fixed environment). */
async function allInOne(run: PreparedRun, deps: CarryOutDeps): Promise<number> {
  const session = await prepareSession(run, deps);
  const signals = watchSignals(deps, session.controller);
  try {
    let outcome: RunOutcome;
    if (run.request.command === 'plan') {
      const summary = PLAN_ONLY_SUMMARY(run.config.trigger.command_prefix);
      const result = await planJob(session.deps, input(session), { finishAfterPlan: summary });
      if (result.kind !== 'ended') throw new Error('internal: a plan-only run did not end');
      outcome = result.outcome;
    } else if (run.request.command === 'approve') {
      const plan = await approvedPlan(run, session, deps.logger);
      outcome = await resumeWork(session.deps, {
        ...input(session),
        work: { plan },
        from: 'the approved plan',
      });
    } else {
      outcome = await runTask(session.deps, input(session));
    }
    return exitCode(session, outcome, signals.seen.signal);
  } finally {
    signals.remove();
  }
}

/** The image of the environment the run will use: the configured one, else the planner's choice checked against detection (D2). */
async function chosenEnvironment(run: PreparedRun, plan: Plan) {
  const selection = selectEnvironment({
    planned: plan.selected_environment,
    detection: await detectEnvironment(run.context.projectDir),
    configured: run.config.environment.name,
  });
  return selection.name;
}

async function handOver(
  run: PreparedRun,
  session: CiSession,
  work: { gathered?: unknown; plan: Plan },
  deps: CarryOutDeps,
) {
  const environment = await chosenEnvironment(run, work.plan);
  await writeHandoff(run.context.projectDir, {
    version: 1,
    request: run.request,
    environment,
    from: {
      pipelineId: run.context.pipeline.id,
      jobId: run.context.job.id,
      ...(run.context.job.url ? { jobUrl: run.context.job.url } : {}),
    },
    task: { id: session.task.id, text: session.task.description },
    runId: session.runId,
    ...(session.reporting.publisher.noteId ? { noteId: session.reporting.publisher.noteId } : {}),
    work,
  });
  const file = path.join(run.context.projectDir, CHILD_PIPELINE_FILE);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(
    file,
    renderChildPipeline({
      environment,
      ci: run.config.ci,
      variables: forwardedVariables(run.env),
      origin: { pipelineId: run.context.pipeline.id, jobId: run.context.job.id },
    }),
  );
  session.deps.reporter.comment(
    `Planned. The work continues in the ${environment} environment (child pipeline).`,
  );
  await session.reporting.publisher.flush();
  deps.logger.info('work handed over', { environment, childPipeline: CHILD_PIPELINE_FILE });
  deps.stdout.write(`mr-agent: planned; the ${environment} job of the child pipeline carries on\n`);
  return 0;
}

/** `--step plan`: plan here, then hand over to the child pipeline's job (B2). */
async function planHere(run: PreparedRun, deps: CarryOutDeps): Promise<number> {
  const session = await prepareSession(run, deps);
  const signals = watchSignals(deps, session.controller);
  try {
    if (run.request.command === 'approve') {
      return await handOver(
        run,
        session,
        { plan: await approvedPlan(run, session, deps.logger) },
        deps,
      );
    }
    const planOnly = run.request.command === 'plan';
    const result = await planJob(
      session.deps,
      input(session),
      planOnly ? { finishAfterPlan: PLAN_ONLY_SUMMARY(run.config.trigger.command_prefix) } : {},
    );
    if (result.kind === 'planned') return await handOver(run, session, result.work, deps);
    const code = exitCode(session, result.outcome, signals.seen.signal);
    await finishWithNothingToDo(
      run.context,
      run.config.ci,
      `the run ended in planning (${result.outcome.reason})`,
      deps.stdout,
    );
    return code;
  } finally {
    signals.remove();
  }
}

/** `--step run`: the child pipeline's job carries on from the plan job's hand-off (B2). */
async function runHandedOver(run: PreparedRun, deps: CarryOutDeps): Promise<number> {
  const handoff = await readHandoff(run.context.projectDir);
  const session = await openSession(run, {
    services: deps.services,
    logger: deps.logger,
    redactor: deps.redactor,
    task: { text: handoff.task.text, id: handoff.task.id },
    runId: handoff.runId,
    adoptNoteId: handoff.noteId,
  });
  const signals = watchSignals(deps, session.controller);
  try {
    const outcome = await resumeWork(session.deps, {
      ...input(session),
      work: handoff.work as Parameters<typeof resumeWork>[1]['work'],
      from: `job ${handoff.from.jobId}`,
    });
    return exitCode(session, outcome, signals.seen.signal);
  } finally {
    signals.remove();
  }
}

/** Carries out the job's step once the request is accepted. */
export function carryOut(run: PreparedRun, deps: CarryOutDeps): Promise<number> {
  if (run.context.step === 'plan') return planHere(run, deps);
  if (run.context.step === 'run') return runHandedOver(run, deps);
  return allInOne(run, deps);
}
