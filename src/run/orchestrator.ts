import { CancelledError } from '../errors/errors.ts';
import { gather } from '../phases/gather/index.ts';
import { requestText } from '../phases/gather/render.ts';
import type { TaskSpec } from '../task/task-yaml.ts';
import type { Gathered } from '../core/gathered.ts';
import type { Plan } from '../core/plan.ts';
import type { EarlierPlan, RunHistory } from '../core/ports.ts';
import type { RunContext, RunDeps } from '../core/run-context.ts';
import { createRunContext } from './context.ts';
import { driveRounds, type Completed } from './drive.ts';
import { deliveryPhase } from '../phases/deliver/phase.ts';
import { environmentPhase } from '../phases/environment/phase.ts';
import { hear, heed } from '../phases/converse/index.ts';
import { executionPhase } from '../phases/execute/step.ts';
import { endFromError, finish } from './finish.ts';
import { keepChangeAtBudgetStop, settleCheckpoint } from './keep-change.ts';
import { adoptCheckpoint, restoreCheckpoint, type Resumable } from './resume.ts';
import type { RunOutcome } from '../core/outcome.ts';
import { inPhase } from '../core/phase-scope.ts';
import { adoptPlan } from '../phases/plan/state.ts';
import { planningPhase } from '../phases/plan/step.ts';
import type { RunEnd } from '../core/run-end.ts';
import { verificationPhase } from '../phases/verify/step.ts';
import { reviewOnlyStage } from '../phases/review/inline/step.ts';

/** What planning left for the work: a plan job hands it to the run job of the child pipeline. */
export interface PlannedWork {
  /** Absent for `/agent approve`: the request is gathered again, the posted plan is kept. */
  gathered?: Gathered | undefined;
  plan: Plan;
  /**
   * The earlier run's plan this one took over, with its
   * revision history and reflections: the job that carries on keeps them.
   */
  reusedPlan?: EarlierPlan | undefined;
}

export interface RunInput {
  task: TaskSpec;
  repoDir: string;
  maxLoops: number;
  /** Carry on from a plan made earlier (the plan job, or the plan `/agent approve` approves). */
  from?: { work: PlannedWork; by: string } | undefined;
  /**
   * Stop once the plan is ready: `finish` makes the plan the run's result
   * (`/agent plan`); `hand-over` leaves the run unfinished for the job that
   * carries it on (the plan job of the two-step flow, B2).
   */
  stopAfterPlan?: { kind: 'finish'; summary: string } | { kind: 'hand-over' } | undefined;
  /**
   * Review the merge request's change instead (`/agent review`): findings
   * posted as threads on its diff lines, with `focus` (may be empty) for the
   * reviewer; no plan, nothing executed or delivered.
   */
  reviewOnly?: { focus: string } | undefined;
  /**
   * Go on from the newest checkpoint of an earlier run on the merge request
   * or issue (`/agent continue`, `/agent retry`): its plan, its finished
   * actions skipped, its change re-applied; a fresh plan when there is none.
   */
  fromCheckpoint?: 'continue' | 'retry' | undefined;
}

export type RunResult =
  { kind: 'ended'; outcome: RunOutcome } | { kind: 'planned'; work: PlannedWork };

function throwIfCancelled(ctx: RunContext): void {
  if (ctx.signal?.aborted) throw new CancelledError('the run was cancelled');
}

/** gather → plan. Undefined when the plan is ready; an end when the run stops during planning. */
async function planStage(ctx: RunContext): Promise<RunEnd | undefined> {
  ctx.fsm.to('PLANNING', 'task started');
  ctx.state.gathered = await inPhase(ctx, 'pre_planning', () => gather(ctx));
  ctx.toolContext.requestText = requestText(ctx.state.gathered);

  const planned = await inPhase(ctx, 'planning', () => planningPhase(ctx));
  return planned.kind === 'end' ? planned.end : undefined;
}

/**
 * The history of a run that carries on from an earlier plan: adopting that
 * plan does not record it a second time (it is already in the history).
 */
function adoptingHistory(history: RunHistory): { history: RunHistory; adopted(): void } {
  let adopting = true;
  const savePlan: RunHistory['savePlan'] = async (plan) => {
    if (!adopting) await history.savePlan(plan);
  };
  return {
    history: new Proxy(history, {
      get(target, property) {
        if (property === 'savePlan') return savePlan;
        const value: unknown = Reflect.get(target, property);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }),
    adopted: () => (adopting = false),
  };
}

/** The plan made earlier becomes the run's plan; the request is gathered again when it was not handed over. */
async function adoptStage(
  ctx: RunContext,
  from: NonNullable<RunInput['from']>,
  adopted: () => void,
): Promise<void> {
  ctx.fsm.to('PLANNING', `plan handed over by ${from.by}`);
  if (from.work.gathered) {
    ctx.state.gathered = from.work.gathered;
    ctx.deps.reporter.phase('pre_planning', 'done');
  } else {
    ctx.state.gathered = await inPhase(ctx, 'pre_planning', () => gather(ctx));
  }
  ctx.toolContext.requestText = requestText(ctx.state.gathered);
  const reused = from.work.reusedPlan;
  if (reused) {
    // a reused plan keeps its revision count, so the limit holds across runs; reflection sees the earlier attempts
    ctx.state.reusedPlan = reused;
    ctx.state.revisions = reused.revisions.length;
  }
  await adoptPlan(ctx, from.work.plan);
  adopted();
  ctx.deps.reporter.phase('planning', 'done');
}

/** The plan and the finished actions of an earlier run's checkpoint; the request is gathered again. */
async function checkpointStage(ctx: RunContext, resumable: Resumable): Promise<void> {
  ctx.fsm.to('PLANNING', `went on from the checkpoint of ${resumable.checkpoint.run_id}`);
  ctx.state.gathered = await inPhase(ctx, 'pre_planning', () => gather(ctx));
  ctx.toolContext.requestText = requestText(ctx.state.gathered);
  await adoptCheckpoint(ctx, resumable);
  ctx.deps.reporter.phase('planning', 'done');
}

/** environment → (execute ⇄ reflect → verify)* → deliver, from the plan. */
async function workStage(ctx: RunContext): Promise<RunEnd> {
  await environmentPhase(ctx);
  return driveRounds<RunEnd>(ctx.fsm, {
    async run() {
      const executed = await inPhase(ctx, 'execution', () => executionPhase(ctx));
      return executed.kind === 'end' ? executed.end : undefined;
    },
    validate: () => inPhase(ctx, 'verification', () => verificationPhase(ctx)),
    complete: () => deliverStage(ctx),
  });
}

/** After a complete validation: the comments said meanwhile, then delivery. */
async function deliverStage(ctx: RunContext): Promise<Completed<RunEnd>> {
  // nothing is pushed once the run is cancelled
  throwIfCancelled(ctx);
  const heard = await hear(ctx, 'delivery');
  if (heard.length > 0) {
    const heeded = await heed(ctx, heard);
    if (heeded.kind === 'end') return heeded;
    if (heeded.revised && ctx.state.queue.length > 0) return { kind: 'again' };
  }
  throwIfCancelled(ctx);
  await deliveryPhase(ctx);
  throwIfCancelled(ctx);
  return {
    kind: 'done',
    end: { state: 'COMPLETE', reason: 'completed', summary: ctx.state.assessment!.summary },
  };
}

/** The stages this run goes through; undefined when it stops after planning for a hand-over. */
async function pipeline(
  ctx: RunContext,
  input: RunInput,
  adopted: () => void,
): Promise<RunEnd | undefined> {
  if (input.reviewOnly) return reviewOnlyStage(ctx, input.reviewOnly.focus);
  const resumable =
    !input.from && input.fromCheckpoint
      ? await restoreCheckpoint(ctx, input.fromCheckpoint)
      : undefined;
  if (input.from) await adoptStage(ctx, input.from, adopted);
  else if (resumable) await checkpointStage(ctx, resumable);
  else {
    const end = await planStage(ctx);
    if (end) return end;
  }
  const stop = input.stopAfterPlan;
  if (stop?.kind === 'hand-over') {
    throwIfCancelled(ctx);
    return undefined;
  }
  if (stop?.kind === 'finish') {
    // the plan is the result: nothing to carry out, nothing left to validate
    ctx.fsm.to('RUNNING', 'plan only: nothing to carry out');
    ctx.fsm.to('VALIDATING', 'plan only: the plan is the result');
    return { state: 'COMPLETE', reason: 'completed', summary: stop.summary };
  }
  return workStage(ctx);
}

/**
 * A run whose budget refused an LLM call ends as `budget_exhausted`, however
 * the refusal surfaced (a phase may have carried on without that call and
 * ended otherwise): what was done and what is left, for `/agent continue`.
 */
function endAfterBudget(ctx: RunContext, end: RunEnd): RunEnd {
  const stop = ctx.deps.budget?.stop;
  if (!stop || end.reason === 'cancelled' || end.state === 'COMPLETE') return end;
  const done = ctx.state.actions.filter((a) => a.status === 'success').length;
  const left = ctx.state.queue.length;
  ctx.logger.info('budget reached', { limit: stop.limit, actionsDone: done, actionsLeft: left });
  return {
    state: 'FAILED',
    reason: 'budget_exhausted',
    summary: `Budget reached (budget.${stop.limit}) after ${done} action${done === 1 ? '' : 's'}; ${left} left.`,
  };
}

/** A run that got to its end after a cancellation ends as cancelled all the same. */
function endAfterAbort(ctx: RunContext, end: RunEnd): RunEnd {
  if (!ctx.signal?.aborted || end.reason === 'cancelled') return end;
  const pushed = ctx.state.delivery?.status === 'pushed' ? ' after its change was pushed' : '';
  return endFromError(ctx, new CancelledError(`the run was cancelled${pushed}`));
}

/**
 * The pipeline, in the order of GUIDE.md:
 * gather → plan → environment → (execute ⇄ reflect → verify)* → deliver → finish,
 * driving the task state machine PENDING → PLANNING → RUNNING → VALIDATING
 * → RUNNING | COMPLETE | FAILED. The two-step flow of the CI component
 * runs it in two jobs: the plan job stops after planning (`hand-over`), the
 * run job carries on `from` that plan. Every run that ends is finished here,
 * once. Never throws for run failures: they are in the outcome.
 */
export async function runStages(deps: RunDeps, input: RunInput): Promise<RunResult> {
  const adopting = input.from ? adoptingHistory(deps.history) : undefined;
  const ctx = await createRunContext(
    adopting ? { ...deps, history: adopting.history } : deps,
    input.task,
    input,
  );
  ctx.logger.info('run started', {
    repo: ctx.repoDir,
    title: input.task.title,
    maxLoops: input.maxLoops,
    strategy: ctx.config.planning.strategy,
    ...(input.from ? { from: input.from.by } : {}),
  });
  let end: RunEnd;
  try {
    const reached = await pipeline(ctx, input, () => adopting?.adopted());
    if (!reached)
      return {
        kind: 'planned',
        work: {
          gathered: ctx.state.gathered!,
          plan: ctx.state.plan!,
          ...(ctx.state.reusedPlan ? { reusedPlan: ctx.state.reusedPlan } : {}),
        },
      };
    end = reached;
  } catch (error) {
    end = endFromError(ctx, error);
  }
  const ending = endAfterAbort(ctx, endAfterBudget(ctx, end));
  if (ending.reason === 'budget_exhausted') await keepChangeAtBudgetStop(ctx);
  await settleCheckpoint(ctx, ending);
  return { kind: 'ended', outcome: await finish(ctx, ending) };
}

/** Runs one task end to end (no hand-over). Never throws for run failures: they are in the outcome. */
export async function runTask(
  deps: RunDeps,
  input: RunInput & { stopAfterPlan?: { kind: 'finish'; summary: string } | undefined },
): Promise<RunOutcome> {
  const result = await runStages(deps, input);
  if (result.kind !== 'ended')
    throw new Error('internal: a run without hand-over stopped after planning');
  return result.outcome;
}
