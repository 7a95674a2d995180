import { UsageError } from '../errors/errors.ts';
import { statePaths, type StatePaths } from '../history/paths.ts';
import type { Logger } from '../log/logger.ts';
import type { Plan } from '../core/plan.ts';
import type { RunOutcome } from '../core/outcome.ts';
import type { PlannedWork, RunInput } from '../run/orchestrator.ts';
import type { CarriedOut, CarryOutDeps } from './job-types.ts';
import { jobPlanOf, type JobPlan } from '../commands/verbs.ts';
import type { ReviewThreadRequest } from '../core/gathered.ts';
import { threadsToAddress } from './review-threads.ts';
import { commandPlan } from './commands.ts';
import { AMOUNT } from '../commands/amount.ts';
import { readHandoff } from './handoff.ts';
import { requestLanguage } from './request-language.ts';
import type { Language } from '../messages/language.ts';
import { finishWithNothingToDo } from './nothing-to-do.ts';
import {
  issueIdOf,
  lastPlan,
  restoreHistory,
  writeRequestRecord,
  type CiRequestRecord,
} from './past-history.ts';
import { approvedRun } from './approve.ts';
import type { PreparedRun } from './prepare.ts';
import { openSession, type CiSession } from './session.ts';
import { ciTaskId } from './task-id.ts';

const PLAN_ONLY_SUMMARY = (prefix: string) =>
  `The plan is posted. Comment \`${prefix} approve\` to carry it out as written.`;

/** The task text: the instruction, or (retry, approve) the earlier request's on this MR or issue. */
function taskText(run: PreparedRun, plan: JobPlan, last: CiRequestRecord | undefined): string {
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

/** The task of a run that addresses review threads: the threads, and what the comment added. */
function threadsTaskText(run: PreparedRun, threads: readonly ReviewThreadRequest[]): string {
  const target = run.request.target;
  const where = target.kind === 'merge_request' ? ` on !${target.iid}` : '';
  const first = threads[0]!;
  const head =
    run.request.command === 'address-reviews'
      ? `Address ${threads.length === 1 ? 'the open review thread' : `the ${threads.length} open review threads`}${where}`
      : `Address the review thread on ${first.path ?? 'the diff'}${first.line !== undefined ? `:${first.line}` : ''}`;
  const asked = run.request.command === 'address-reviews' ? '' : run.request.task.trim();
  return asked ? `${head}: ${asked}` : head;
}

/**
 * The diff threads this job addresses: every open one for `address-reviews`
 * (none is a usage error, said in the command's thread), the thread a `run`
 * command was written in when that is a thread on a diff line.
 */
async function reviewThreads(run: PreparedRun): Promise<ReviewThreadRequest[] | undefined> {
  const plan = jobPlanOf(run.request.command);
  if (plan?.task === 'review-threads') {
    if (run.request.target.kind !== 'merge_request')
      throw new UsageError(
        '`address-reviews` answers the review threads of a merge request: comment it on one',
        {
          where: 'MR_AGENT_COMMAND',
        },
      );
    const threads = await threadsToAddress(run, true);
    if (!threads || threads.length === 0)
      throw new UsageError('there is no unresolved review thread on a diff line to address here', {
        hint: 'threads opened by people below the trigger role and the agent’s own threads are left to a reply in the thread (`/agent fix this`).',
      });
    return threads;
  }
  if (run.request.command !== 'run' || run.request.noteId === undefined) return undefined;
  return threadsToAddress(run, false);
}

/** The task of a review: the merge request, and the focus when one was given. */
function reviewTaskText(run: PreparedRun): string {
  const target = run.request.target;
  if (target.kind !== 'merge_request')
    throw new UsageError('`review` reviews a merge request: comment it on one', {
      where: 'MR_AGENT_COMMAND',
    });
  const focus = run.request.task.trim();
  return `Review !${target.iid}${focus ? `\n\nFocus: ${focus}` : ''}`;
}

async function approvedPlan(
  run: PreparedRun,
  paths: StatePaths,
  logger: Logger,
  planRun: CiRequestRecord | undefined,
): Promise<Plan> {
  const issueId = issueIdOf(run.project.id, run.request);
  const plan =
    issueId && planRun ? await lastPlan(paths, issueId, logger, planRun.task.id) : undefined;
  if (!plan) {
    throw new UsageError('there is no posted plan to approve here', {
      hint: `comment \`${run.config.trigger.command_prefix} plan <instruction>\` first.`,
    });
  }
  return plan;
}

/** How the run of this job starts: its task, and where planning stands. */
interface JobStart {
  task: { text: string; id?: string };
  runId?: string;
  /** The plan job's progress note, which the run job keeps editing. */
  adoptNoteId?: string | undefined;
  from?: RunInput['from'];
  stopAfterPlan?: RunInput['stopAfterPlan'];
  /** The earlier task whose plan the run may reuse (retry, resume). */
  planSource?: string | undefined;
  /** `/agent review`: the review's focus (may be empty). */
  reviewOnly?: RunInput['reviewOnly'];
  /** Go on from the newest checkpoint (continue, retry). */
  fromCheckpoint?: 'continue' | 'retry';
  /** USD added to `budget.max_usd` for this run (`/agent continue +$X`). */
  raiseUsd?: number;
  /** The notes' language, decided once for the run (the run job keeps the plan job's). */
  language: Language;
}

/** The run's configuration with `budget.max_usd` raised by `usd` (from none: `usd` is the limit). */
function withRaisedBudget(run: PreparedRun, usd: number): PreparedRun {
  const budget = run.config.budget;
  return {
    ...run,
    config: { ...run.config, budget: { ...budget, max_usd: (budget.max_usd ?? 0) + usd } },
  };
}

/** `--step all` and `--step plan`: the command asked for (see ./commands.ts). */
async function requestedStart(
  run: PreparedRun,
  deps: CarryOutDeps,
  threads: readonly ReviewThreadRequest[] | undefined,
): Promise<JobStart> {
  const plan = commandPlan(run.request.command);
  const paths = statePaths(
    run.context.projectDir,
    run.config.state.directory,
    run.config.planning.history.directory,
  );
  const restored = await restoreHistory({
    gitlab: run.gitlab,
    projectId: run.project.id,
    reads: run.reads,
    request: run.request,
    botUserId: run.bot.id,
    currentJobId: run.context.job.id,
    paths,
    logger: deps.logger,
  });
  // approve answers one `/agent plan` run: its request and its plan (not a later run's)
  const planRun = plan.mode === 'approved-plan' ? await approvedRun(run, restored) : undefined;
  const text =
    plan.mode === 'review-only'
      ? reviewTaskText(run)
      : threads
        ? threadsTaskText(run, threads)
        : taskText(run, plan, planRun ?? restored.lastRequest);
  const earlier = plan.task === 'last-request' ? (planRun ?? restored.lastRequest) : undefined;
  const language = await requestLanguage(run, { threads, earlier });
  const approved =
    plan.mode === 'approved-plan'
      ? await approvedPlan(run, paths, deps.logger, planRun)
      : undefined;
  await writeRequestRecord(paths, {
    request: run.request,
    task: { id: ciTaskId(run), text },
    jobId: run.context.job.id,
    language,
  });
  const stopAfterPlan: RunInput['stopAfterPlan'] =
    plan.mode === 'plan-only'
      ? { kind: 'finish', summary: PLAN_ONLY_SUMMARY(run.config.trigger.command_prefix) }
      : run.context.step === 'plan'
        ? { kind: 'hand-over' }
        : undefined;
  // retry and resume run the last request again: its plan may be reused
  const planSource =
    plan.mode === 'run' && plan.task === 'last-request' ? restored.lastRequest?.task.id : undefined;
  const amount = AMOUNT.exec(run.request.task.trim());
  return {
    task: { text },
    language,
    ...(plan.fromCheckpoint
      ? { fromCheckpoint: run.request.command === 'continue' ? 'continue' : 'retry' }
      : {}),
    ...(amount ? { raiseUsd: Number(amount[1]) } : {}),
    ...(approved ? { from: { work: { plan: approved }, by: 'the approved plan' } } : {}),
    ...(stopAfterPlan ? { stopAfterPlan } : {}),
    ...(planSource ? { planSource } : {}),
    ...(plan.mode === 'review-only' ? { reviewOnly: { focus: run.request.task.trim() } } : {}),
  };
}

/** `--step run`: the child pipeline's job carries on from the plan job's hand-off. */
async function handedOverStart(
  run: PreparedRun,
  threads: readonly ReviewThreadRequest[] | undefined,
): Promise<JobStart> {
  const handoff = await readHandoff(run.context.projectDir);
  return {
    task: { text: handoff.task.text, id: handoff.task.id },
    runId: handoff.runId,
    adoptNoteId: handoff.noteId,
    from: { work: handoff.work as PlannedWork, by: `job ${handoff.from.jobId}` },
    // a hand-off written before the plan job recorded its language: decided again, from the same request
    language: handoff.language ?? (await requestLanguage(run, { threads })),
  };
}

/**
 * Carries out the job's step once the request is accepted: the whole run
 * (`all`), the plan job of the two-step flow (`plan`, which hands over to the
 * child pipeline) or its run job (`run`), for the command asked (see
 * ./commands.ts). The run goes through the orchestrator's stages and ends
 * once, in the run's lifecycle (signals, grace period, final state).
 */
export async function carryOutJob(prepared: PreparedRun, deps: CarryOutDeps): Promise<CarriedOut> {
  const threads = await reviewThreads(prepared);
  const start =
    prepared.context.step === 'run'
      ? await handedOverStart(prepared, threads)
      : await requestedStart(prepared, deps, threads);
  const run = start.raiseUsd ? withRaisedBudget(prepared, start.raiseUsd) : prepared;
  const session = await openSession(run, {
    services: deps.services,
    logger: deps.logger,
    redactor: deps.redactor,
    task: start.task,
    runId: start.runId,
    adoptNoteId: start.adoptNoteId ?? run.firstNote?.noteId,
    signal: deps.lifecycle.signal,
    planSource: start.planSource,
    review: start.reviewOnly !== undefined,
    threads,
    language: start.language,
  });
  deps.notePosted?.();
  const input: RunInput = {
    task: session.task,
    repoDir: session.task.repo,
    maxLoops: session.task.maxLoops,
    from: start.from,
    stopAfterPlan: start.stopAfterPlan,
    reviewOnly: start.reviewOnly,
    fromCheckpoint: start.fromCheckpoint,
  };
  // the run's stages, phases and tools load once the progress note is posted, so the note comes first
  const stages = import('../run/orchestrator.ts');
  const settled = await deps.lifecycle.settle(
    session.reporting,
    async (): Promise<{ handedOver: CarriedOut } | { outcome: RunOutcome }> => {
      const result = await (await stages).runStages(session.deps, input);
      if (result.kind !== 'planned') return { outcome: result.outcome };
      const { handOver } = await import('./hand-over.ts');
      return { handedOver: await handOver(run, session, result.work, deps) };
    },
  );
  if (settled.kind === 'abandoned') {
    if (run.context.step === 'plan')
      await finishWithNothingToDo(run.context, run.config.ci, 'the job was cancelled', deps.stdout);
    return { exitCode: settled.exitCode };
  }
  if ('handedOver' in settled.value) return settled.value.handedOver;
  const outcome = settled.value.outcome;
  if (run.context.step === 'plan') {
    await finishWithNothingToDo(
      run.context,
      run.config.ci,
      `the run ended in planning (${outcome.reason})`,
      deps.stdout,
    );
  }
  if (threads && run.context.step !== 'plan')
    await answerReviewThreads(run, session, threads, outcome, deps);
  // what was said after the run's last read is answered now that its final note is up
  if (!outcome.finalStateNotWritten) await session.deps.conversation?.close?.();
  if (outcome.finalStateNotWritten) {
    deps.stdout.write(
      `mr-agent: ${outcome.finalStateNotWritten}; the requester still sees the run as running. The result is in .mr-agent/result.json (exit ${outcome.exitCode}).\n`,
    );
  }
  return { exitCode: deps.lifecycle.exitCode(outcome.exitCode), run: { outcome, session } };
}

/**
 * Each review thread the run addressed gets its answer: the commit and a
 * resolved thread, or why it stays open. A thread GitLab would not take the
 * answer in is said in the job log, never lost silently.
 */
async function answerReviewThreads(
  run: PreparedRun,
  session: CiSession,
  threads: readonly ReviewThreadRequest[],
  outcome: RunOutcome,
  deps: CarryOutDeps,
): Promise<void> {
  const target = run.request.target;
  if (target.kind !== 'merge_request') return;
  const { answerThreads } = await import('../phases/review/threads/answer.ts');
  const answered = await answerThreads(
    {
      gitlab: run.gitlab,
      project: run.project.id,
      iid: target.iid,
      llm: session.deps.llm,
      prompts: session.deps.prompts,
      redactor: deps.redactor,
      logger: deps.logger,
      language: session.reporting.language,
      progressNoteUrl: session.reporting.publisher.noteUrl,
      signal: deps.lifecycle.signal,
    },
    threads,
    outcome,
  );
  for (const thread of answered.filter((t) => t.failed))
    deps.stdout.write(
      `mr-agent: the answer in review thread ${thread.discussionId} (${thread.label}) did not go through: ${thread.failed}\n`,
    );
}

/** `carryOutJob`, as an exit code. */
export async function carryOut(run: PreparedRun, deps: CarryOutDeps): Promise<number> {
  return (await carryOutJob(run, deps)).exitCode;
}

export type { CarriedOut, CarryOutDeps } from './job-types.ts';
