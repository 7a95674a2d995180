/**
 * Pure updates of the progress-note data. Each function returns a new
 * `ProgressState` and leaves its input untouched, so a publisher can keep the
 * last posted version and tests can compare states.
 */
import type {
  ChecklistItem,
  ChecklistStatus,
  EnvironmentResult,
  FinalState,
  LinkRef,
  PhaseName,
  PhaseState,
  PhaseStatus,
  PlanChangeKind,
  PlanVersion,
  ProgressState,
  RelatedNote,
  ReplanEvent,
  ReviewVerdict,
  RunFacts,
  CancelCause,
} from './model.ts';
import { PHASES } from './model.ts';

/** What a progress note starts from: the task, when it started, where it runs, its language. */
export type ProgressInit = Pick<
  ProgressState,
  | 'taskId'
  | 'title'
  | 'startedAt'
  | 'jobId'
  | 'pipelineId'
  | 'jobUrl'
  | 'language'
  | 'commandPrefix'
>;

/** Running phases remember when they were (re)entered, to add up their time. */
type TimedPhase = PhaseStatus & { runningSince?: number };

export function initialProgress(init: ProgressInit): ProgressState {
  const phases = Object.fromEntries(PHASES.map((p) => [p, { state: 'pending' }])) as Record<
    PhaseName,
    PhaseStatus
  >;
  return {
    ...init,
    phases,
    reviews: [],
    usage: { byRole: {} },
    replans: 0,
    links: [],
    notices: [],
  };
}

function withPhase(s: ProgressState, phase: PhaseName, next: TimedPhase): ProgressState {
  return { ...s, phases: { ...s.phases, [phase]: next } };
}

/** Enters a phase (again): state `running`; its first start time is kept. */
export function startPhase(
  s: ProgressState,
  phase: PhaseName,
  at: number,
  detail?: string,
): ProgressState {
  const prev = s.phases[phase] as TimedPhase;
  return withPhase(s, phase, {
    ...prev,
    state: 'running',
    startedAt: prev.startedAt ?? at,
    finishedAt: undefined,
    runs: (prev.runs ?? 0) + 1,
    runningSince: at,
    detail,
  });
}

/** Leaves a phase as done, failed or skipped, adding the time since it was entered. */
export function endPhase(
  s: ProgressState,
  phase: PhaseName,
  state: 'done' | 'failed' | 'skipped',
  at: number,
  detail?: string,
): ProgressState {
  return leavePhase(s, phase, state, at, detail);
}

function leavePhase(
  s: ProgressState,
  phase: PhaseName,
  state: PhaseState,
  at: number,
  detail?: string,
): ProgressState {
  const prev = s.phases[phase] as TimedPhase;
  const ran = prev.runningSince === undefined ? 0 : Math.max(0, at - prev.runningSince);
  const { runningSince: _drop, ...rest } = prev;
  return withPhase(s, phase, {
    ...rest,
    state,
    finishedAt: prev.startedAt === undefined || state === 'pending' ? undefined : at,
    totalMs: (prev.totalMs ?? 0) + ran,
    detail: detail ?? (state === 'done' ? undefined : prev.detail),
  });
}

/** Sets the short remark shown next to a phase (e.g. `3/5 actions`). */
export function setPhaseDetail(
  s: ProgressState,
  phase: PhaseName,
  detail: string | undefined,
): ProgressState {
  return withPhase(s, phase, { ...s.phases[phase], detail });
}

/** The phase shown as current: the last running one in display order. */
export function currentPhase(s: ProgressState): PhaseName | undefined {
  return [...PHASES].reverse().find((p) => s.phases[p].state === 'running');
}

/** Shows the first plan (revision 0); a plan set again starts over. */
export function setPlan(
  s: ProgressState,
  items: readonly ChecklistItem[],
  at: number,
): ProgressState {
  return {
    ...s,
    plan: { current: { revision: 0, startedAt: at, items: [...items] }, history: [] },
  };
}

/**
 * Whether finished items survive a change: partial
 * replans, action regeneration and plan revisions keep them; re-decomposing
 * the task or re-understanding the goal starts a fresh checklist.
 */
export function keepsFinishedItems(change: PlanChangeKind): boolean {
  switch (change) {
    case 'retry':
    case 'partial_replan':
    case 'action_regeneration':
    case 'plan_revision':
    case 'reflection':
      return true;
    case 'task_redecomposition':
    case 'goal_revision':
    case 'full_replan':
    case 'clarification_request':
      return false;
  }
}

/** The change a replan level stands for (1 retry … 5 goal re-check). */
export function changeForLevel(level: number): PlanChangeKind {
  const byLevel: PlanChangeKind[] = [
    'retry',
    'partial_replan',
    'action_regeneration',
    'task_redecomposition',
    'goal_revision',
  ];
  return byLevel[Math.min(Math.max(Math.round(level), 1), 5) - 1]!;
}

export interface PlanRevision {
  items: readonly ChecklistItem[];
  reason: string;
  change: PlanChangeKind;
  at: number;
}

/**
 * Steps done and total of a checklist (skipped items count as neither done nor
 * open); a step tried again after it failed counts once.
 */
export function checklistProgress(items: readonly ChecklistItem[]): {
  done: number;
  total: number;
} {
  const steps = items.filter(
    (item, index) =>
      !(item.status === 'failed' && items[index + 1]?.description === item.description),
  );
  return { done: steps.filter((i) => i.status === 'done').length, total: steps.length };
}

/**
 * Replaces the plan with a revised one: the old plan is
 * folded into the history as it was; finished items are carried over when
 * the change keeps them (kept items first, then the new ones, unchecked).
 */
export function revisePlan(s: ProgressState, revision: PlanRevision): ProgressState {
  if (!s.plan) return setPlan(s, revision.items, revision.at);
  const old = s.plan.current;
  let items = revision.items.map((i) => ({ ...i }));
  if (keepsFinishedItems(revision.change)) {
    const finished = old.items.filter((i) => i.status === 'done');
    const finishedIds = new Set(finished.map((i) => i.id));
    const newIds = new Set(items.map((i) => i.id));
    items = [
      ...finished.filter((i) => !newIds.has(i.id)),
      ...items.map((i) => (finishedIds.has(i.id) ? { ...i, status: 'done' as const } : i)),
    ];
  }
  const current: PlanVersion = {
    revision: old.revision + 1,
    startedAt: revision.at,
    items,
    reason: revision.reason,
    previousProgress: checklistProgress(old.items),
    change: revision.change,
  };
  return { ...s, plan: { current, history: [...s.plan.history, old] } };
}

/**
 * A step queued again after it failed: the same plan with one more item for
 * the step (the checklist shows it as one item carrying its retries), not a
 * plan revision.
 */
export function retryStep(s: ProgressState, items: ChecklistItem[]): ProgressState {
  if (!s.plan) return setPlan(s, items, s.startedAt);
  return {
    ...s,
    plan: { ...s.plan, current: { ...s.plan.current, items: items.map((i) => ({ ...i })) } },
  };
}

/** Sets one checklist item's status (unknown ids are ignored). */
export function updateItem(
  s: ProgressState,
  id: string,
  status: ChecklistStatus,
  note?: string,
): ProgressState {
  if (!s.plan) return s;
  const items = s.plan.current.items.map((i) =>
    i.id === id ? { ...i, status, note: note ?? (status === 'done' ? undefined : i.note) } : i,
  );
  return { ...s, plan: { ...s.plan, current: { ...s.plan.current, items } } };
}

export function setEnvironment(s: ProgressState, environment: EnvironmentResult): ProgressState {
  return { ...s, environment };
}

/** Records a review verdict, replacing the earlier one of the same phase. */
export function recordReview(s: ProgressState, verdict: ReviewVerdict): ProgressState {
  return { ...s, reviews: [...s.reviews.filter((r) => r.phase !== verdict.phase), verdict] };
}

/** Adds one LLM call's token usage to its role; `costUsd` adds to the estimate when known. */
export function addUsage(
  s: ProgressState,
  role: string,
  usage: { promptTokens: number; completionTokens: number },
  costUsd?: number,
): ProgressState {
  const prev = s.usage.byRole[role] ?? { promptTokens: 0, completionTokens: 0, calls: 0 };
  const byRole = {
    ...s.usage.byRole,
    [role]: {
      promptTokens: prev.promptTokens + usage.promptTokens,
      completionTokens: prev.completionTokens + usage.completionTokens,
      calls: prev.calls + 1,
    },
  };
  const cost =
    costUsd === undefined ? s.usage.costUsd : (s.usage.costUsd ?? 0) + Math.max(0, costUsd);
  return { ...s, usage: { byRole, ...(cost === undefined ? {} : { costUsd: cost }) } };
}

export function countReplan(s: ProgressState): ProgressState {
  return { ...s, replans: s.replans + 1 };
}

/** The most replan events the note keeps (the oldest go first). */
export const MAX_REPLAN_EVENTS = 30;

/** Adds a replan's start, completion or failure to the note's history. */
export function addReplanEvent(s: ProgressState, event: ReplanEvent): ProgressState {
  return { ...s, replanLog: [...(s.replanLog ?? []), event].slice(-MAX_REPLAN_EVENTS) };
}

/** Adds a link, replacing one with the same label. */
export function addLink(s: ProgressState, link: LinkRef): ProgressState {
  return { ...s, links: [...s.links.filter((l) => l.label !== link.label), link] };
}

/** The run's end in facts (delivery, checks, criteria, error), shown at the top of the note. */
export function setFacts(s: ProgressState, facts: RunFacts): ProgressState {
  return { ...s, facts };
}

/** Says who or what stopped a cancelled run. */
export function setCancelCause(s: ProgressState, cause: CancelCause): ProgressState {
  return { ...s, cancelledBy: cause };
}

/** The run was given up: it did not stop within its grace period after the signal. */
export function markGaveUpAfterGrace(s: ProgressState): ProgressState {
  return { ...s, gaveUpAfterGrace: true };
}

/** Remembers where another note of the run is (the ❓ question, the 🙋 note, the patch). */
export function setRelated(s: ProgressState, kind: RelatedNote, url: string): ProgressState {
  return { ...s, related: { ...s.related, [kind]: url } };
}

export function addNotice(s: ProgressState, notice: string): ProgressState {
  return s.notices.includes(notice) ? s : { ...s, notices: [...s.notices, notice] };
}

export interface RunEnd {
  state: FinalState;
  summary: string;
  at: number;
}

/**
 * Writes how the run ended. Running phases end (done on success, failed
 * otherwise; paused when awaiting an answer), phases that never ran are
 * skipped, and an item still marked running is no longer shown as running.
 */
export function finishRun(s: ProgressState, end: RunEnd): ProgressState {
  let next = s;
  for (const phase of PHASES) {
    const status = next.phases[phase];
    if (end.state === 'awaiting_answer') {
      if (status.state === 'running') {
        next = leavePhase(next, phase, 'pending', end.at, 'paused: awaiting an answer');
      }
      continue;
    }
    if (status.state === 'running') {
      const ok = end.state === 'complete';
      const detail = ok || end.state === 'failed' ? undefined : end.state.replace('_', ' ');
      next = endPhase(next, phase, ok ? 'done' : 'failed', end.at, detail);
    } else if (status.state === 'pending' && !(phase === 'complete' && end.state === 'complete')) {
      next = withPhase(next, phase, { ...status, state: 'skipped' });
    }
  }
  if (end.state === 'complete') {
    next = endPhase(startPhase(next, 'complete', end.at), 'complete', 'done', end.at);
  }
  if (next.plan && end.state !== 'complete') {
    const items = next.plan.current.items.map((i) =>
      i.status === 'running' ? { ...i, status: 'pending' as const, note: 'stopped' } : i,
    );
    next = { ...next, plan: { ...next.plan, current: { ...next.plan.current, items } } };
  }
  return { ...next, final: { state: end.state, summary: end.summary, finishedAt: end.at } };
}
