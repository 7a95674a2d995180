import type { ActionPlan, PlannedAction } from './plan.ts';

/** One planned action in the order it will run, with a key stable for the whole run. */
export interface PlanStep {
  key: string;
  action: PlannedAction;
}

/**
 * Orders the actions: subtasks in `execution_order`, each subtask's actions
 * in the order listed; actions of subtasks missing from the order come last.
 * `nextNumber` numbers the keys so they stay unique across plan revisions.
 */
export function orderSteps(plan: ActionPlan, nextNumber: () => number): PlanStep[] {
  const byTask = new Map<string, PlannedAction[]>();
  for (const action of plan.actions) {
    const list = byTask.get(action.task_id) ?? [];
    list.push(action);
    byTask.set(action.task_id, list);
  }
  const ordered: PlannedAction[] = [];
  for (const id of new Set(plan.execution_order)) {
    ordered.push(...(byTask.get(id) ?? []));
    byTask.delete(id);
  }
  for (const action of plan.actions) if (byTask.has(action.task_id)) ordered.push(action);
  return ordered.map((action) => ({ key: `A${nextNumber()}`, action }));
}
