import { UsageError } from '../errors/errors.ts';
import { statePaths, type StatePaths } from '../history/paths.ts';
import type { Logger } from '../log/logger.ts';
import type { Plan } from '../core/plan.ts';
import { exitCodeForSignal } from '../report/termination.ts';
import { runTask } from '../run/orchestrator.ts';
import type { RunOutcome } from '../core/outcome.ts';
import type { CarriedOut, CarryOutDeps } from './job-types.ts';
import { commandPlan, type CommandPlan } from './commands.ts';
import { readHandoff } from './handoff.ts';
import { handOver } from './hand-over.ts';
import { guarded, settle, watchSignals, type Signals } from './job-end.ts';
import { finishWithNothingToDo } from './nothing-to-do.ts';
import {
  issueIdOf,
  lastPlan,
  restoreHistory,
  writeRequestRecord,
  type RestoredHistory,
} from './past-history.ts';
import type { PreparedRun } from './prepare.ts';
import { ciTaskId, openSession, type CiSession } from './session.ts';
import { planJob, resumeWork, type PlannedWork } from './two-step.ts';

const PLAN_ONLY_SUMMARY = (prefix: string) =>
  `The plan is posted. Comment \`${prefix} approve\` to carry it out as written.`;

/** The task text: the instruction, or (retry, approve) the last request's on this MR or issue. */
function taskText(run: PreparedRun, plan: CommandPlan, restored: RestoredHistory): string {
  const last = restored.lastRequest;
  if (plan.task === 'last-request') {
    if (last) return last.task.text;
    if (plan.needsEarlierRun)
      throw new UsageError(`there is no earlier agent run here to ${run.request.command}`);
  }
  const text = run.request.task.trim();
  if (text) return text;
  const target = run.request.target;
  if (target.kind !== 'none')
    return `Work on ${target.kind === 'merge_request' ? '!' : '#'}${target.iid}`;
  throw new UsageError('the request has no task text', { where: 'MR_AGENT_TASK' });
}

async function approvedPlan(run: PreparedRun, paths: StatePaths, logger: Logger): Promise<Plan> {
  const issueId = issueIdOf(run.project.id, run.request);
  const plan = issueId ? await lastPlan(paths, issueId, logger) : undefined;
  if (!plan) {
    throw new UsageError('there is no posted plan to approve here', {
      hint: `comment \`${run.config.trigger.command_prefix} plan <instruction>\` first.`,
    });
  }
  return plan;
}

async function prepareSession(run: PreparedRun, deps: CarryOutDeps, controller: AbortController) {
  const plan = commandPlan(run.request.command);
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
  const text = taskText(run, plan, restored);
  // a refused approve posts no note
  const approved =
    plan.mode === 'approved-plan' ? await approvedPlan(run, paths, deps.logger) : undefined;
  await writeRequestRecord(paths, {
    request: run.request,
    task: { id: ciTaskId(run), text },
    jobId: run.context.job.id,
  });
  // retry and resume run the last request again: its plan may be reused (seed 001 §7.3)
  const planSource =
    plan.mode === 'run' && plan.task === 'last-request' ? restored.lastRequest?.task.id : undefined;
  const session = await openSession(run, {
    services: deps.services,
    logger: deps.logger,
    redactor: deps.redactor,
    task: { text },
    controller,
    planSource,
  });
  return { session, plan, approved };
}

const input = (session: CiSession) => ({
  task: session.task,
  repoDir: session.task.repo,
  maxLoops: session.task.maxLoops,
});

/** `--step all`: the whole run in this job (a fixed environment). */
async function allInOne(
  run: PreparedRun,
  deps: CarryOutDeps,
  signals: Signals,
  controller: AbortController,
) {
  const { session, plan, approved } = await prepareSession(run, deps, controller);
  const outcome = async (): Promise<RunOutcome> => {
    if (plan.mode === 'plan-only') {
      const summary = PLAN_ONLY_SUMMARY(run.config.trigger.command_prefix);
      const result = await planJob(session.deps, input(session), { finishAfterPlan: summary });
      if (result.kind !== 'ended') throw new Error('internal: a plan-only run did not end');
      return result.outcome;
    }
    if (approved) {
      return resumeWork(session.deps, {
        ...input(session),
        work: { plan: approved },
        from: 'the approved plan',
      });
    }
    return runTask(session.deps, input(session));
  };
  return settle(session, guarded(session, outcome), signals, deps);
}

/** `--step plan`: plan here, then hand over to the child pipeline's job (B2). */
async function planHere(
  run: PreparedRun,
  deps: CarryOutDeps,
  signals: Signals,
  controller: AbortController,
) {
  const { session, plan, approved } = await prepareSession(run, deps, controller);
  return guarded(session, () => planOrHandOver(run, deps, signals, { session, plan, approved }));
}

async function planOrHandOver(
  run: PreparedRun,
  deps: CarryOutDeps,
  signals: Signals,
  { session, plan, approved }: Awaited<ReturnType<typeof prepareSession>>,
): Promise<CarriedOut> {
  if (approved) return handOver(run, session, { plan: approved }, deps);
  const planOnly = plan.mode === 'plan-only';
  const result = await planJob(
    session.deps,
    input(session),
    planOnly ? { finishAfterPlan: PLAN_ONLY_SUMMARY(run.config.trigger.command_prefix) } : {},
  );
  if (result.kind === 'planned' && !signals.seen.signal)
    return handOver(run, session, result.work, deps);
  const ended =
    result.kind === 'ended'
      ? await settle(session, Promise.resolve(result.outcome), signals, deps)
      : { exitCode: exitCodeForSignal(signals.seen.signal ?? 'SIGTERM') };
  await finishWithNothingToDo(
    run.context,
    run.config.ci,
    result.kind === 'ended'
      ? `the run ended in planning (${result.outcome.reason})`
      : 'the job was cancelled after planning',
    deps.stdout,
  );
  return ended;
}

/** `--step run`: the child pipeline's job carries on from the plan job's hand-off (B2). */
async function runHandedOver(
  run: PreparedRun,
  deps: CarryOutDeps,
  signals: Signals,
  controller: AbortController,
) {
  const handoff = await readHandoff(run.context.projectDir);
  const session = await openSession(run, {
    services: deps.services,
    logger: deps.logger,
    redactor: deps.redactor,
    task: { text: handoff.task.text, id: handoff.task.id },
    runId: handoff.runId,
    adoptNoteId: handoff.noteId,
    controller,
  });
  const outcome = guarded(session, () =>
    resumeWork(session.deps, {
      ...input(session),
      work: handoff.work as PlannedWork,
      from: `job ${handoff.from.jobId}`,
    }),
  );
  return settle(session, outcome, signals, deps);
}

/**
 * Carries out the job's step once the request is accepted: the whole run
 * (`all`), the plan job of the two-step flow (`plan`) or its run job (`run`),
 * for the command asked (see ./commands.ts). A termination signal cancels the
 * run, which writes its final state; the exit code is then 128 + the signal.
 */
export async function carryOutJob(run: PreparedRun, deps: CarryOutDeps): Promise<CarriedOut> {
  const controller = new AbortController();
  const signals = watchSignals(deps, controller);
  try {
    if (run.context.step === 'plan') return await planHere(run, deps, signals, controller);
    if (run.context.step === 'run') return await runHandedOver(run, deps, signals, controller);
    return await allInOne(run, deps, signals, controller);
  } finally {
    signals.remove();
  }
}

/** `carryOutJob`, as an exit code. */
export async function carryOut(run: PreparedRun, deps: CarryOutDeps): Promise<number> {
  return (await carryOutJob(run, deps)).exitCode;
}

export type { CarriedOut, CarryOutDeps } from './job-types.ts';
