import { gather } from '../phases/gather/index.ts';
import type { Gathered } from '../core/gathered.ts';
import type { Plan } from '../core/plan.ts';
import type { RunDeps } from '../core/run-context.ts';
import { createRunContext } from '../run/context.ts';
import { endFromError, finish } from '../run/finish.ts';
import { planStage, workStage, type RunInput } from '../run/orchestrator.ts';
import type { RunOutcome } from '../core/outcome.ts';
import { inPhase } from '../core/phase-scope.ts';
import { adoptPlan } from '../phases/plan/state.ts';
import type { RunHistory } from '../core/ports.ts';
import type { RunEnd } from '../core/run-end.ts';

/**
 * The run split over the two jobs of the component's `auto` flow (B2): the
 * plan job gathers and plans in the planner image; the run job of the child
 * pipeline carries on from that plan in the chosen environment's image. Both
 * use the orchestrator's own stages, so the run is the same run.
 */
export interface PlannedWork {
  /** Absent for `/agent approve`: the request is gathered again, the posted plan is kept. */
  gathered?: Gathered | undefined;
  plan: Plan;
}

export type PlanJobResult =
  { kind: 'planned'; work: PlannedWork } | { kind: 'ended'; outcome: RunOutcome };

/**
 * Gathers and plans. With `finishAfterPlan` (the `/agent plan` command) the
 * plan is the run's result; otherwise the run stops here without a final
 * state, to be resumed by `resumeWork`. A run that ends during planning
 * (clarification, review failure, error) is finished as usual.
 */
export async function planJob(
  deps: RunDeps,
  input: RunInput,
  options: { finishAfterPlan?: string } = {},
): Promise<PlanJobResult> {
  const ctx = await createRunContext(deps, input.task, input);
  let end: RunEnd | undefined;
  try {
    end = await planStage(ctx);
  } catch (error) {
    end = endFromError(ctx, error);
  }
  if (!end && options.finishAfterPlan !== undefined) {
    // the plan is the result: nothing to carry out, nothing left to validate
    ctx.fsm.to('RUNNING', 'plan only: nothing to carry out');
    ctx.fsm.to('VALIDATING', 'plan only: the plan is the result');
    end = { state: 'COMPLETE', reason: 'completed', summary: options.finishAfterPlan };
  }
  if (end) return { kind: 'ended', outcome: await finish(ctx, end) };
  return { kind: 'planned', work: { gathered: ctx.state.gathered!, plan: ctx.state.plan! } };
}

/**
 * Carries on from a plan made in an earlier job (the plan job of this
 * pipeline, or the `/agent plan` run that `/agent approve` approves): the
 * plan is taken as it was (it is already in the history), then environment
 * setup, execution, reflection and verification run as in one job.
 */
export async function resumeWork(
  deps: RunDeps,
  input: RunInput & { work: PlannedWork; from: string },
): Promise<RunOutcome> {
  let adopting = true;
  const savePlan: RunHistory['savePlan'] = async (plan) => {
    if (!adopting) await deps.history.savePlan(plan);
  };
  // the same history, except that adopting the handed-over plan does not record it twice
  const history = new Proxy(deps.history, {
    get(target, property) {
      if (property === 'savePlan') return savePlan;
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const ctx = await createRunContext({ ...deps, history }, input.task, input);
  let end: RunEnd;
  try {
    ctx.fsm.to('PLANNING', `plan handed over by ${input.from}`);
    if (input.work.gathered) {
      ctx.state.gathered = input.work.gathered;
      deps.reporter.phase('pre_planning', 'done');
    } else {
      ctx.state.gathered = await inPhase(ctx, 'pre_planning', () => gather(ctx));
    }
    await adoptPlan(ctx, input.work.plan);
    adopting = false;
    deps.reporter.phase('planning', 'done');
    end = await workStage(ctx);
  } catch (error) {
    end = endFromError(ctx, error);
  }
  return finish(ctx, end);
}
