import type { HistoryEntry } from '../../history/entries.ts';
import { readEarlierPlan } from '../../history/plan-reuse.ts';
import type { PlanningHistoryStore } from '../../history/planning-history.ts';
import type { ExecutionRecord, RunHistory } from '../../core/ports.ts';

const PAST_LINES = 40;
const LINE_CHARS = 240;

function oneLine(text: unknown): string {
  return String(text ?? '')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, LINE_CHARS);
}

/** One short line per history entry, for the planner, so it carries on where earlier runs stopped. */
export function describeEntry(entry: HistoryEntry): string {
  const when = entry.timestamp.slice(0, 16).replace('T', ' ');
  const task = `task ${entry.task_id}`;
  switch (entry.type) {
    case 'plan': {
      const goal = (entry.plan.goal_understanding as { main_objective?: string } | undefined)
        ?.main_objective;
      const reused = entry.reused_from ? ` (reused from ${entry.reused_from.task_id})` : '';
      return `${when} ${task}: plan${reused} — ${oneLine(goal)}`;
    }
    case 'revision':
      return `${when} ${task}: plan revision #${entry.revision} — ${oneLine(entry.reason)}`;
    case 'reflection': {
      const r = entry.evaluation.reflection as { status?: string; evaluation?: string } | undefined;
      return `${when} ${task}: reflection (${r?.status ?? '?'}) — ${oneLine(r?.evaluation)}`;
    }
    case 'replan_decision':
      return `${when} ${task}: replan decision in ${entry.phase} (${entry.executed ? 'executed' : 'not executed'}, ${entry.result})`;
    case 'execution':
      return `${when} ${task}: ${entry.action_id} ${entry.status} — ${oneLine(entry.summary)}`;
  }
}

/**
 * The run's history port over the JSONL store of src/history/. `planSource`
 * is the store whose plan the run may reuse: the retried
 * task's; by default the run's own task's.
 */
export function storeHistory(
  store: PlanningHistoryStore,
  issueId: string | undefined,
  planSource: { store: PlanningHistoryStore; taskId: string },
): RunHistory {
  return {
    earlierPlan: () => readEarlierPlan(planSource.store, planSource.taskId),
    async pastExecutions() {
      const entries = issueId
        ? await store.getPastExecutionsForIssue(issueId)
        : await store.readAll();
      return entries.slice(-PAST_LINES).map(describeEntry);
    },
    async savePlan(plan, reuse) {
      await store.savePlan(plan as unknown as Record<string, unknown>, reuse);
    },
    async saveRevision(updatedPlan, details) {
      await store.saveRevision(updatedPlan as unknown as Record<string, unknown>, {
        reason: details.reason,
        changes: details.changes,
        ...(details.reflection
          ? { reflection: details.reflection as unknown as Record<string, unknown> }
          : {}),
      });
    },
    async saveReflection(reflection) {
      await store.saveReflection(reflection as unknown as Record<string, unknown>);
    },
    async saveExecution(record: ExecutionRecord) {
      await store.saveExecution(record);
    },
  };
}
