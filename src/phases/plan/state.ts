import type { ActionPlan, Plan, PlannedAction } from '../../core/plan.ts';
import { orderSteps, type PlanStep } from '../../core/plan-steps.ts';
import type { RunContext } from '../../core/run-context.ts';
import type { PlanReuse } from '../../core/ports.ts';
import type { ChecklistItem, ChecklistStatus, PlanChange } from '../../core/progress/reports.ts';

/** How the review-feedback step's purpose starts (the execution prompt reads it; English, as prompts are). */
const FEEDBACK_PURPOSE = "Address the execution review's feedback: ";

/** The feedback's first line, when the action is the review-feedback step (also one from a stored plan). */
export function reviewFeedbackOf(action: PlannedAction): string | undefined {
  return action.purpose.startsWith(FEEDBACK_PURPOSE)
    ? action.purpose.slice(FEEDBACK_PURPOSE.length)
    : undefined;
}

function item(step: PlanStep, status: ChecklistStatus): ChecklistItem {
  const feedback = reviewFeedbackOf(step.action);
  return {
    id: step.key,
    label: `${step.action.task_id}: ${step.action.purpose}`,
    taskId: step.action.task_id,
    status,
    ...(feedback !== undefined ? { reviewFeedback: feedback } : {}),
  };
}

/** Changes that start a fresh checklist: a re-decomposition, a goal revisited. */
const FRESH: ReadonlySet<PlanChange> = new Set(['task_redecomposition', 'goal_revision']);

/** The checklist: executed actions of the current checklist with their marks, then the queue. */
function rebuildChecklist(ctx: RunContext): void {
  const { state } = ctx;
  state.checklist = [
    ...state.actions
      .slice(state.checklistFrom)
      .map((a) => item(a, a.status === 'success' ? 'done' : 'failed')),
    ...state.queue.map((s) => item(s, 'pending')),
  ];
}

function publishPlan(ctx: RunContext, comment: string, change: PlanChange): void {
  rebuildChecklist(ctx);
  ctx.deps.reporter.plan(ctx.state.checklist, { revision: ctx.state.revisions, comment, change });
}

function nextNumber(ctx: RunContext): () => number {
  return () => ++ctx.state.stepNumber;
}

/**
 * The whole action plan the run carries on with: the actions that succeeded
 * so far, then `next`. The history records this (in `plan` entries made
 * during a run and in revisions), so a later run that reuses the plan on a
 * fresh checkout repeats the finished work too.
 */
export function carriedActionPlan(ctx: RunContext, next: ActionPlan): ActionPlan {
  const done = ctx.state.actions.filter((a) => a.status === 'success').map((a) => a.action);
  if (done.length === 0) return next;
  return {
    execution_order: [...new Set([...done.map((a) => a.task_id), ...next.execution_order])],
    actions: [...done, ...next.actions],
  };
}

/** Makes a (new) plan the current one: its actions become the queue. */
export async function adoptPlan(
  ctx: RunContext,
  plan: Plan,
  change: PlanChange = 'initial',
  reason?: string,
  reuse?: PlanReuse,
): Promise<void> {
  ctx.state.plan = plan;
  ctx.state.queue = orderSteps(plan.action_plan, nextNumber(ctx));
  if (FRESH.has(change)) ctx.state.checklistFrom = ctx.state.actions.length;
  const recorded = { ...plan, action_plan: carriedActionPlan(ctx, plan.action_plan) };
  await (reuse ? ctx.deps.history.savePlan(recorded, reuse) : ctx.deps.history.savePlan(recorded));
  publishPlan(ctx, reason ?? plan.comment, change);
}

/** A plan revision: `remaining` replaces the queue; executed actions stay as they are. */
export function replaceRemaining(
  ctx: RunContext,
  remaining: ActionPlan,
  comment: string,
  change: PlanChange,
): void {
  const { state } = ctx;
  state.queue = orderSteps(remaining, nextNumber(ctx));
  const done = state.actions.map((a) => a.action);
  state.plan = {
    ...state.plan!,
    action_plan: {
      execution_order: [...new Set([...done.map((a) => a.task_id), ...remaining.execution_order])],
      actions: [...done, ...remaining.actions],
    },
  };
  publishPlan(ctx, comment, change);
}

const FEEDBACK_PURPOSE_CHARS = 200;

/**
 * The action that carries a review's feedback back to execution when the
 * reflection proposed no change (a FAIL always leads to a revise):
 * the first line names it in the checklist; the whole feedback is its
 * expected outcome, which the execution prompt shows.
 */
export function feedbackAction(ctx: RunContext, feedback: string): PlannedAction {
  const text = feedback.trim() || 'The reviewer found the change not good enough.';
  // no feedback: the checklist item says only that the review's feedback is addressed
  const first = feedback.trim() ? text.split('\n')[0]!.replace(/\s+/g, ' ') : '';
  const headline =
    first.length > FEEDBACK_PURPOSE_CHARS ? `${first.slice(0, FEEDBACK_PURPOSE_CHARS)}…` : first;
  return {
    task_id: ctx.state.actions.at(-1)?.action.task_id ?? 'review_feedback',
    action_type: 'revise',
    tool: 'apply_patch',
    purpose: `${FEEDBACK_PURPOSE}${headline}`,
    expected_outcome: `Every point of the review feedback is fixed in the code. The feedback:\n${text}`,
    fallback_strategy: 'Say in the closing message which points could not be fixed, and why.',
  };
}

/** Queues the review feedback as the next action (the remaining actions are empty then). */
export function queueFeedback(ctx: RunContext, feedback: string): void {
  const action = feedbackAction(ctx, feedback);
  replaceRemaining(
    ctx,
    { execution_order: [action.task_id], actions: [action] },
    'Revising the change after the execution review.',
    'review',
  );
}

/** Runs a step again (replan level 1), under a new key. */
export function requeue(ctx: RunContext, step: PlanStep): void {
  ctx.state.queue.unshift({ key: `A${++ctx.state.stepNumber}`, action: step.action });
  publishPlan(ctx, `Retrying ${step.action.task_id}.`, 'retry');
}

export function markItem(ctx: RunContext, key: string, status: ChecklistStatus): void {
  const found = ctx.state.checklist.find((i) => i.id === key);
  if (found) found.status = status;
  ctx.deps.reporter.item(key, status);
}
