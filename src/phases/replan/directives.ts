/**
 * From a decision to what the run does (docs/replanning.md, "Levels"): the directive for a
 * level, the reason handed to the planner (the model's own reasoning, issues,
 * recommendations and phase extras), and the identities used by the limits.
 */
import type { ReplanCheckpoint, ReplanDirective, ReplanPoint } from '../../core/hooks.ts';
import { LEVEL_NAMES, RESTART_FROM, type ReplanLevel, type Resolved } from './levels.ts';
import type { ReplanDecision } from './schema.ts';

const PHASE_NAMES: Record<ReplanPoint, string> = {
  goal_understanding: 'goal understanding',
  task_decomposition: 'task decomposition',
  action_sequence: 'action sequence generation',
  execution: 'execution',
  final_evaluation: 'the final evaluation',
};

function list(title: string, items: readonly string[] | undefined): string[] {
  return items && items.length > 0 ? [`${title}:`, ...items.map((i) => `- ${i}`)] : [];
}

function line(title: string, text: string | null | undefined): string[] {
  return text ? [`${title}: ${text}`] : [];
}

/**
 * The reason given to the planner: what the decision found and recommends.
 * Its first line sums it up (the checklist shows it as the revision reason).
 */
export function reasonText(point: ReplanPoint, level: ReplanLevel, d: ReplanDecision): string {
  const summary = d.reasoning.replace(/\s+/g, ' ').trim();
  return [
    `Replan decided after ${PHASE_NAMES[point]}, level ${level} (${LEVEL_NAMES[level]}): ${summary}`,
    ...list('Issues found', d.issues_found),
    ...list('Recommended actions', d.recommended_actions),
    ...list('Missing steps', d.missing_steps),
    ...line('Recommended granularity', d.recommended_granularity),
    ...line('Scope adjustment', d.scope_adjustment),
    ...list('Unavailable tools', d.unavailable_tools),
    ...list('Alternative tools', d.alternative_tools),
    ...list('Dependency issues', d.dependency_issues),
    ...list('Plan adjustments', d.plan_adjustments),
    ...line('Recovery strategy', d.recovery_strategy),
    ...list('Affected actions', d.affected_actions),
    ...list('Issues identified', d.issues_identified),
    ...list('Additional actions', d.additional_actions),
  ].join('\n');
}

/** The directive for a level: 1 retries the action (execution only), 2–5 restart the plan. */
export function directiveFor(
  point: ReplanPoint,
  level: ReplanLevel,
  decision: ReplanDecision,
): ReplanDirective {
  const reason = reasonText(point, level, decision);
  if (level === 1) return { kind: 'retry_action', reason };
  const summary = decision.reasoning.replace(/\s+/g, ' ').trim();
  return { kind: 'replan', from: RESTART_FROM[level], reason, ...(summary ? { summary } : {}) };
}

/** `task_1: Write the file` — the action a retry repeats. */
export function actionKey(checkpoint: ReplanCheckpoint): string | undefined {
  if (checkpoint.point !== 'execution') return undefined;
  return `${checkpoint.action.action.task_id}: ${checkpoint.action.action.purpose}`;
}

/**
 * The trigger of a replan for loop detection: the checkpoint,
 * the action it follows (execution) and what is asked (level or question).
 * The same replan proposed again for the same cause has the same key.
 */
export function triggerKey(
  checkpoint: ReplanCheckpoint,
  resolved: Exclude<Resolved, { kind: 'none' }>,
): string {
  const what = resolved.kind === 'clarify' ? 'clarify' : `L${resolved.level}`;
  const subject = checkpoint.point === 'execution' ? `:${checkpoint.action.action.task_id}` : '';
  return `${checkpoint.point}${subject}:${what}`;
}
