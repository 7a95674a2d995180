/**
 * The plan as a checklist, in people's words: the
 * items' text only (no internal ids), a remark after an item that is running,
 * failed, stopped or skipped, and one 🔁 line when the plan was revised.
 * Earlier plans go into the folded run details (`planHistory`).
 */
import type { MessageKey } from '../../messages/en.ts';
import { formatDateTime } from '../../messages/format.ts';
import type { ChecklistItem, PlanProgress, PlanVersion } from '../../core/progress/model.ts';
import { oneLine, safeProse } from '../markdown.ts';
import { EMOJI } from '../vocabulary.ts';
import type { Voice } from './headline.ts';

/** Internal ids the planner puts before an item's text: `A1: task_1: …`. */
const INTERNAL_IDS = /^(?:[A-Z]{1,3}\d+:\s+)?(?:task_[\w.-]+:\s+)?/;

/** The item's text, without internal ids. */
export function itemText(item: ChecklistItem): string {
  return oneLine(safeProse(item.description), 300).replace(INTERNAL_IDS, '') || item.id;
}

function remark(v: Voice, key: MessageKey, item: ChecklistItem, emoji = ''): string {
  const note =
    item.note && item.note !== 'stopped' ? `: ${oneLine(safeProse(item.note), 200)}` : '';
  return ` — ${emoji}${emoji ? ' ' : ''}*${v.m(key)}${note}*`;
}

/** One checklist line. */
export function checklistLine(item: ChecklistItem, v: Voice): string {
  const text = itemText(item);
  switch (item.status) {
    case 'done':
      return `- [x] ${text}`;
    case 'running':
      return `- [ ] ${text}${remark(v, 'item.inProgress', item, EMOJI.running)}`;
    case 'failed':
      return `- [ ] ${text}${remark(v, 'item.failed', item, EMOJI.failed)}`;
    case 'skipped':
      return `- [ ] ~~${text}~~${remark(v, 'item.skipped', item, EMOJI.skipped)}`;
    case 'pending':
      return item.note === 'stopped'
        ? `- [ ] ${text}${remark(v, 'item.stopped', item)}`
        : `- [ ] ${text}`;
  }
}

/** The line of a step tried more than once: its last try, with how often it failed before. */
function retriedLine(item: ChecklistItem, failedBefore: number, v: Voice): string {
  const text = itemText(item);
  const said = (key: MessageKey, count: number, emoji = '') =>
    ` — ${emoji}${emoji ? ' ' : ''}*${v.m(key, { count })}*`;
  switch (item.status) {
    case 'done':
      return `- [x] ${text}${said('item.doneAfter', failedBefore)}`;
    case 'running':
      return `- [ ] ${text}${said('item.runningAfter', failedBefore, EMOJI.running)}`;
    case 'failed':
      return `- [ ] ${text}${said('item.failedTimes', failedBefore + 1, EMOJI.failed)}`;
    case 'pending':
      return item.note === 'stopped'
        ? `- [ ] ${text}${said('item.failedTimes', failedBefore, EMOJI.failed)}`
        : `- [ ] ${text}${said('item.retrying', failedBefore)}`;
    case 'skipped':
      return checklistLine(item, v);
  }
}

/**
 * The checklist, one line per step: a step tried again after it failed (the
 * same text, one item per try) is one line carrying its retries, so a long
 * run reads like a short one.
 */
export function checklistLines(items: readonly ChecklistItem[], v: Voice): string[] {
  const lines: string[] = [];
  let failedBefore = 0;
  for (const [index, item] of items.entries()) {
    const next = items[index + 1];
    if (item.status === 'failed' && next && next.description === item.description) {
      failedBefore += 1;
      continue;
    }
    lines.push(failedBefore > 0 ? retriedLine(item, failedBefore, v) : checklistLine(item, v));
    failedBefore = 0;
  }
  return lines;
}

/** The 🔁 line and the current checklist (empty when there is no plan yet). */
export function planSection(plan: PlanProgress | undefined, v: Voice): string[] {
  if (!plan || plan.current.items.length === 0) return [];
  const lines: string[] = [];
  const current = plan.current;
  if (current.revision > 0) {
    const reason = oneLine(safeProse(current.reason ?? ''), 300) || v.m('plan.reasonMissing');
    lines.push('', v.m('plan.revised', { count: current.revision, reason }));
  }
  lines.push('', ...checklistLines(current.items, v));
  return lines;
}

function historyEntry(version: PlanVersion, replacedBecause: string | undefined, v: Voice) {
  const time = formatDateTime(version.startedAt, v.language);
  const title =
    version.revision === 0
      ? v.m('history.original', { time })
      : v.m('history.revision', { number: version.revision, time });
  const lines = [`**${title}**`, '', ...checklistLines(version.items, v)];
  if (replacedBecause) {
    const reason = oneLine(safeProse(replacedBecause), 500);
    lines.push('', v.m('history.replacedBecause', { reason }));
  }
  return lines.join('\n');
}

/** How many earlier plans the folded details show (the newest ones). */
export const PLANS_KEPT = 2;

/**
 * The last two earlier plans, oldest first, each with why it was replaced
 * (for the folded details); older ones are counted, not shown.
 */
export function planHistory(plan: PlanProgress | undefined, v: Voice): string[] {
  if (!plan || plan.history.length === 0) return [];
  const entries = plan.history.map((version, index) =>
    historyEntry(version, (plan.history[index + 1] ?? plan.current).reason, v),
  );
  const hidden = Math.max(0, entries.length - PLANS_KEPT);
  const older = hidden > 0 ? [`_${v.m('history.older', { count: hidden })}_`] : [];
  return [
    '',
    `#### ${v.m('history.heading')}`,
    '',
    [...older, ...entries.slice(hidden)].join('\n\n'),
  ];
}
