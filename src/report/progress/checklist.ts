/**
 * The plan checklist of the progress note, with the revision formats of
 * seed 003 §11.4: "Execution Plan (Revised #n)", the revision reason, the
 * previous progress, the progress line with percentage and revision count,
 * and earlier plans folded in `<details>`.
 */
import { formatTimestamp, percent } from '../format.ts';
import { oneLine, safeProse } from '../markdown.ts';
import { checklistProgress } from './state.ts';
import type { ChecklistItem, PlanProgress, PlanVersion } from '../../core/progress.ts';

function itemText(item: ChecklistItem): string {
  return `**${oneLine(safeProse(item.id), 80)}**: ${oneLine(safeProse(item.description), 300)}`;
}

function remark(item: ChecklistItem): string {
  return item.note ? `: ${oneLine(safeProse(item.note), 200)}` : '';
}

/** One checklist line; failed and skipped items say so after the text. */
export function checklistLine(item: ChecklistItem): string {
  switch (item.status) {
    case 'done':
      return `- [x] ${itemText(item)}`;
    case 'running':
      return `- [ ] ${itemText(item)} ⏳ _in progress${remark(item)}_`;
    case 'failed':
      return `- [ ] ${itemText(item)} ❌ _failed${remark(item)}_`;
    case 'skipped':
      return `- [ ] ~~${itemText(item)}~~ ⏭️ _skipped${remark(item)}_`;
    case 'pending':
      return `- [ ] ${itemText(item)}${item.note ? ` _(${oneLine(safeProse(item.note), 200)})_` : ''}`;
  }
}

function checklistLines(items: readonly ChecklistItem[]): string {
  return items.length === 0 ? '_No items._' : items.map(checklistLine).join('\n');
}

/** `*Progress: 2/4 (50%) complete | Revision: #1 at …*` plus the §11.4.5 lines once revised. */
export function progressLines(plan: PlanVersion): string {
  const { done, total } = checklistProgress(plan.items);
  const head = `*Progress: ${done}/${total} (${percent(done, total)}) complete`;
  if (plan.revision === 0) return `${head}*`;
  return [
    `${head} | Revision: #${plan.revision} at ${formatTimestamp(plan.startedAt)}*`,
    `*Plan Revisions: ${plan.revision} ${plan.revision === 1 ? 'time' : 'times'}*`,
    `*Current Plan: #${plan.revision + 1} (started at ${formatTimestamp(plan.startedAt)})*`,
  ].join('\n\n');
}

function historyEntry(version: PlanVersion, replacedBecause: string | undefined): string {
  const title = version.revision === 0 ? 'Original Plan' : `Revision #${version.revision}`;
  const lines = [
    `#### ${title} (${formatTimestamp(version.startedAt)})`,
    '',
    checklistLines(version.items),
  ];
  if (replacedBecause)
    lines.push('', `**Revision Reason**: ${oneLine(safeProse(replacedBecause), 500)}`);
  return lines.join('\n');
}

function historySection(plan: PlanProgress): string[] {
  if (plan.history.length === 0) return [];
  const entries = plan.history.map((version, index) =>
    historyEntry(version, (plan.history[index + 1] ?? plan.current).reason),
  );
  return [
    '',
    '<details>',
    '<summary>📜 Previous Plan History</summary>',
    '',
    entries.join('\n\n'),
    '',
    '</details>',
  ];
}

/** The whole plan section: heading, revision header, checklist, progress line, folded history. */
export function renderPlanSection(plan: PlanProgress): string {
  const current = plan.current;
  const lines: string[] = [];
  if (current.revision === 0) {
    lines.push('### 📋 Execution Plan', '', checklistLines(current.items));
  } else {
    const prev = current.previousProgress;
    lines.push(`### 📋 Execution Plan (Revised #${current.revision})`, '');
    lines.push(
      `**Revision Reason**: ${oneLine(safeProse(current.reason ?? 'not given'), 500)}`,
      '',
    );
    if (prev) lines.push(`**Previous Progress**: ${prev.done}/${prev.total}`, '');
    lines.push('#### New Plan:', '', checklistLines(current.items));
  }
  lines.push('', progressLines(current), ...historySection(plan));
  return lines.join('\n');
}
