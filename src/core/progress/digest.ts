import type { PlanStep } from '../plan-steps.ts';
import type { ActionRecord } from '../records.ts';

/**
 * The fixed-size digest of a run's progress that execution, reflection and
 * verification prompts share, so a long run's prompts stay small: counts, the last few actions, a
 * capped list of changed files and what comes next.
 */
export const RECENT_ACTIONS = 3;
export const LISTED_FILES = 20;
export const UPCOMING_STEPS = 3;
const RECENT_SUMMARY_CHARS = 300;

export function progressDigest(input: {
  actions: readonly ActionRecord[];
  upcoming: readonly PlanStep[];
  changedFiles: ReadonlySet<string>;
}): string {
  const { actions, upcoming } = input;
  const failed = actions.filter((a) => a.status === 'failure').length;
  const lines = [`Actions executed so far: ${actions.length} (${failed} failed).`];
  const older = actions.length - RECENT_ACTIONS;
  if (older > 0) lines.push(`(${older} earlier actions are not shown.)`);
  for (const a of actions.slice(-RECENT_ACTIONS)) {
    lines.push(
      `- ${a.key} ${a.action.task_id} [${a.status}] ${a.action.purpose.slice(0, 120)}: ${a.summary.slice(0, RECENT_SUMMARY_CHARS)}`,
    );
  }
  const files = [...input.changedFiles];
  if (files.length > 0) {
    const shown = files.slice(-LISTED_FILES);
    const more = files.length - shown.length;
    lines.push(`Files changed so far: ${shown.join(', ')}${more > 0 ? ` (and ${more} more)` : ''}`);
  }
  if (upcoming.length > 0) {
    const next = upcoming
      .slice(0, UPCOMING_STEPS)
      .map((s) => `${s.action.task_id}: ${s.action.purpose.slice(0, 100)}`);
    const more = upcoming.length - next.length;
    lines.push(
      `Coming after this action: ${next.join('; ')}${more > 0 ? `; and ${more} more` : ''}`,
    );
  }
  return lines.join('\n');
}
