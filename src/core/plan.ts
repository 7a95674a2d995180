import * as z from 'zod';
import { SelectedEnvironment } from './environment.ts';

export { SelectedEnvironment };

/**
 * The plan the planning call returns. Strict for the model: every field is required;
 * unknown keys are dropped. `planReplySchema` adds the cross-field checks
 * whose messages go back to the model on a re-ask.
 */
export const Complexity = z.enum(['low', 'medium', 'high']);

export const GoalUnderstanding = z.object({
  main_objective: z.string().min(1),
  success_criteria: z.array(z.string().min(1)).min(1),
  constraints: z.array(z.string()),
  context: z.string(),
});
export type GoalUnderstanding = z.infer<typeof GoalUnderstanding>;

export const Subtask = z.object({
  id: z.string().min(1),
  description: z.string().min(1),
  dependencies: z.array(z.string()),
  estimated_complexity: Complexity,
  required_tools: z.array(z.string()),
});
export type Subtask = z.infer<typeof Subtask>;

export const TaskDecomposition = z.object({
  reasoning: z.string(),
  subtasks: z.array(Subtask).min(1),
});
export type TaskDecomposition = z.infer<typeof TaskDecomposition>;

export const PlannedAction = z.object({
  task_id: z.string().min(1),
  action_type: z.string().min(1),
  tool: z.string(),
  purpose: z.string().min(1),
  expected_outcome: z.string(),
  fallback_strategy: z.string(),
});
export type PlannedAction = z.infer<typeof PlannedAction>;

export const ActionPlan = z.object({
  execution_order: z.array(z.string()),
  actions: z.array(PlannedAction).min(1),
});
export type ActionPlan = z.infer<typeof ActionPlan>;

export const Plan = z.object({
  phase: z.literal('planning').default('planning'),
  goal_understanding: GoalUnderstanding,
  task_decomposition: TaskDecomposition,
  action_plan: ActionPlan,
  /** The model's choice of environment; missing parts are filled from detection (src/phases/environment/). */
  selected_environment: SelectedEnvironment.default({}),
  comment: z.string(),
});
export type Plan = z.infer<typeof Plan>;

/** The goal is unclear, so the model asks instead of planning. */
export const UnclearGoal = z.object({
  type: z.literal('unclear_goal'),
  message: z.string().min(1),
  clarification_needed: z.array(z.string().min(1)).min(1),
});
export type UnclearGoal = z.infer<typeof UnclearGoal>;

type Issue = { path: (string | number)[]; message: string };
/** Cross-references inside a plan: ids unique and known, within max_subtasks. */
export function planProblems(plan: Plan, maxSubtasks: number): Issue[] {
  const issues: Issue[] = [];
  const subtasks = plan.task_decomposition.subtasks;
  if (subtasks.length > maxSubtasks)
    issues.push({
      path: ['task_decomposition', 'subtasks'],
      message: `has ${subtasks.length} subtasks; at most ${maxSubtasks} are allowed (max_subtasks), so merge some`,
    });
  const ids = new Set<string>();
  subtasks.forEach((s, i) => {
    if (ids.has(s.id))
      issues.push({
        path: ['task_decomposition', 'subtasks', i, 'id'],
        message: `duplicate id ${s.id}`,
      });
    ids.add(s.id);
  });
  subtasks.forEach((s, i) =>
    s.dependencies.forEach((d, j) => {
      if (!ids.has(d))
        issues.push({
          path: ['task_decomposition', 'subtasks', i, 'dependencies', j],
          message: `unknown subtask id ${d}`,
        });
    }),
  );
  issues.push(...actionPlanProblems(plan.action_plan, ids, ['action_plan']));
  return issues;
}

/** An action plan may only name known subtasks (also used for revisions). */
export function actionPlanProblems(
  plan: ActionPlan,
  ids: ReadonlySet<string>,
  base: (string | number)[],
): Issue[] {
  const issues: Issue[] = [];
  const known = [...ids].join(', ');
  plan.execution_order.forEach((id, i) => {
    if (!ids.has(id))
      issues.push({
        path: [...base, 'execution_order', i],
        message: `unknown subtask id ${id} (known: ${known})`,
      });
  });
  plan.actions.forEach((a, i) => {
    if (!ids.has(a.task_id))
      issues.push({
        path: [...base, 'actions', i, 'task_id'],
        message: `unknown subtask id ${a.task_id} (known: ${known})`,
      });
  });
  return issues;
}

const PLAN_PARTS = ['goal_understanding', 'task_decomposition', 'action_plan'] as const;

/**
 * The planning reply: a plan, or an `error` of type
 * `unclear_goal` instead of it. One object rather than a union, so a failed
 * validation names the exact missing field when the model is re-asked.
 */
export function planReplySchema(maxSubtasks: number) {
  return z
    .object({
      phase: z.literal('planning').default('planning'),
      goal_understanding: GoalUnderstanding.optional(),
      task_decomposition: TaskDecomposition.optional(),
      action_plan: ActionPlan.optional(),
      selected_environment: SelectedEnvironment.default({}),
      error: UnclearGoal.optional(),
      comment: z.string(),
    })
    .superRefine((reply, ctx) => {
      if (reply.error) return;
      const missing = PLAN_PARTS.filter((part) => reply[part] === undefined);
      for (const part of missing)
        ctx.addIssue({
          code: 'custom',
          path: [part],
          message: 'required (only a reply with an "unclear_goal" error may leave it out)',
        });
      if (missing.length === 0)
        for (const issue of planProblems(reply as Plan, maxSubtasks))
          ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
    });
}
export type PlanReply = z.infer<ReturnType<typeof planReplySchema>>;

export type PlanningResult =
  { kind: 'plan'; plan: Plan } | { kind: 'clarification'; error: UnclearGoal; comment: string };

/** Narrows a validated reply into a plan or a clarification request. */
export function toPlanningResult(reply: PlanReply): PlanningResult {
  if (reply.error) return { kind: 'clarification', error: reply.error, comment: reply.comment };
  return { kind: 'plan', plan: Plan.parse(reply) };
}
