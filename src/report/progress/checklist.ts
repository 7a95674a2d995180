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

export function checklistLines(items: readonly ChecklistItem[], v: Voice): string[] {
  return items.map((item) => checklistLine(item, v));
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

/** Earlier plans, oldest first, each with why it was replaced (for the folded details). */
export function planHistory(plan: PlanProgress | undefined, v: Voice): string[] {
  if (!plan || plan.history.length === 0) return [];
  const entries = plan.history.map((version, index) =>
    historyEntry(version, (plan.history[index + 1] ?? plan.current).reason, v),
  );
  return ['', `#### ${v.m('history.heading')}`, '', entries.join('\n\n')];
}
