/**
 * What an earlier run of a task left to reuse ("planning check → existing
 * plan → execution"): the plan as that run last carried it,
 * its revision history and its reflections, read through the store's
 * `hasPlan`, `getLatestPlan`, `getRevisionHistory` and `getAllReflections`.
 * Whether to reuse it is the planning phase's decision
 * (src/phases/plan/reuse.ts).
 */
import type { EarlierPlan, EarlierReflection } from '../core/ports.ts';
import type { HistoryEntry, PlanEntry, ReflectionEntry } from './entries.ts';
import type { PlanningHistoryStore } from './planning-history.ts';

type JsonObject = Record<string, unknown>;

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** A reflection entry holds the whole reflection reply (`{reflection: {...}, plan_revision, …}`). */
function reflectionOf(entry: ReflectionEntry): EarlierReflection {
  const r = (entry.evaluation.reflection ?? {}) as JsonObject;
  const issues = Array.isArray(r.issues_identified) ? r.issues_identified.map(String) : [];
  return {
    at: entry.timestamp,
    status: text(r.status) || 'unknown',
    evaluation: text(r.evaluation),
    issues,
    revisionNeeded: r.plan_revision_needed === true,
  };
}

/** Index of the newest `plan` or `revision` entry. */
function latestPlanIndex(entries: readonly HistoryEntry[]): number {
  for (let i = entries.length - 1; i >= 0; i -= 1) {
    const type = entries[i]!.type;
    if (type === 'plan' || type === 'revision') return i;
  }
  return -1;
}

function planBefore(entries: readonly HistoryEntry[], index: number): PlanEntry | undefined {
  for (let i = index; i >= 0; i -= 1) {
    const entry = entries[i]!;
    if (entry.type === 'plan') return entry;
  }
  return undefined;
}

/**
 * The plan the task's history ends with: the newest `plan` entry, or, after a
 * revision, that plan with the revision's action plan (a revision records the
 * whole action plan the run carried on with: the actions that succeeded and
 * the new remaining ones). Undefined when the history holds no plan.
 */
export async function readEarlierPlan(
  store: PlanningHistoryStore,
  taskId: string,
): Promise<EarlierPlan | undefined> {
  if (!(await store.hasPlan())) return undefined;
  const latest = (await store.getLatestPlan())!;
  const entries = await store.readAll();
  const index = latestPlanIndex(entries);
  const base = planBefore(entries, index);
  if (!base) return undefined;
  const plan =
    latest.entry.type === 'plan' ? latest.plan : { ...base.plan, action_plan: latest.plan };
  const later = entries.slice(index + 1);
  const reflections = (await store.getAllReflections()).map(reflectionOf);
  const verification = entries
    .filter((e) => e.type === 'execution' && e.action_id === 'verification')
    .at(-1);
  return {
    taskId,
    plan,
    at: latest.entry.timestamp,
    revisions: (await store.getRevisionHistory()).map((r) => ({
      revision: r.revision,
      reason: r.reason,
      at: r.timestamp,
    })),
    reflections,
    revisionPending: later.some((e) => e.type === 'reflection' && reflectionOf(e).revisionNeeded),
    completed: verification?.type === 'execution' && verification.status === 'success',
  };
}
