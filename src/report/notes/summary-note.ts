/**
 * The final summary note of a run (SPEC H2; seed 001 completion summary):
 * outcome, key results, checks that ran, what was delivered, cost and links.
 */
import { formatCost, formatCount, formatDuration } from '../format.ts';
import { bulletList, inlineCode, link, oneLine, safeProse, tableCell } from '../markdown.ts';
import { FINAL_LABELS } from '../progress/render.ts';
import type { FinalState, LinkRef } from '../../core/progress.ts';
import type { NoteContext } from './context.ts';
import { markerFor } from './context.ts';

export interface ValidationRun {
  command: string;
  /** Null when the command did not exit on its own (timeout, signal). */
  exitCode: number | null;
  durationMs: number;
  timedOut?: boolean;
}

export interface DeliveryInfo {
  branch?: string;
  commit?: string;
  mergeRequestUrl?: string;
  /** The change could not be pushed and was posted as a patch note instead. */
  patchNoteUrl?: string;
  /** Why nothing was pushed, when nothing was (or, with `intendedBranch`, why not there). */
  notPushedReason?: string;
  /** The branch the change belongs on, when it was pushed elsewhere. */
  intendedBranch?: string;
}

export interface SummaryNoteInput {
  state: FinalState;
  title: string;
  summary: string;
  goalAchieved?: boolean;
  keyOutcomes: readonly string[];
  tasksCompleted: number;
  tasksFailed: number;
  validation: readonly ValidationRun[];
  changedFiles?: readonly string[];
  delivery?: DeliveryInfo;
  durationMs: number;
  totalTokens?: number;
  costUsd?: number;
  links: readonly LinkRef[];
}

function checks(runs: readonly ValidationRun[]): string[] {
  if (runs.length === 0) return ['', '### Checks', '', '_No checks were run._'];
  const rows = runs.map((r) => {
    const result = r.timedOut
      ? '⏱️ timed out'
      : r.exitCode === 0
        ? '✅ exit 0'
        : `❌ exit ${r.exitCode ?? '—'}`;
    return `| ${tableCell(inlineCode(r.command), 200)} | ${result} | ${formatDuration(r.durationMs)} |`;
  });
  return ['', '### Checks', '', '| Command | Result | Time |', '| --- | --- | ---: |', ...rows];
}

function changes(input: SummaryNoteInput): string[] {
  const d = input.delivery;
  const lines: string[] = [];
  if (d?.branch || d?.commit) {
    const parts = [
      d.branch ? `branch ${inlineCode(d.branch)}` : '',
      d.commit ? `commit ${inlineCode(d.commit.slice(0, 12))}` : '',
    ].filter(Boolean);
    const mr = d.mergeRequestUrl ? ` → ${link('merge request', d.mergeRequestUrl)}` : '';
    lines.push(`- Pushed ${parts.join(', ')}${mr}`);
  }
  if (d?.patchNoteUrl)
    lines.push(`- Not pushed; the diff is in a ${link('patch note', d.patchNoteUrl)}`);
  const why = d?.notPushedReason ? oneLine(safeProse(d.notPushedReason), 300) : '';
  if (d?.intendedBranch) lines.push(`- Not on ${inlineCode(d.intendedBranch)}: ${why || '—'}`);
  else if (why) lines.push(`- Not pushed: ${why}`);
  const files = input.changedFiles ?? [];
  if (files.length > 0) {
    const shown = files.slice(0, 30).map((f) => inlineCode(f));
    const more = files.length > 30 ? ` and ${files.length - 30} more` : '';
    lines.push(`- Files changed (${files.length}): ${shown.join(', ')}${more}`);
  }
  return lines.length === 0 ? [] : ['', '### Changes', '', ...lines];
}

export function renderSummaryNote(input: SummaryNoteInput, context: NoteContext): string {
  const facts = [`**Duration**: ${formatDuration(input.durationMs)}`];
  if (input.totalTokens !== undefined) facts.push(`**Tokens**: ${formatCount(input.totalTokens)}`);
  if (input.costUsd !== undefined) facts.push(`**Estimated cost**: ${formatCost(input.costUsd)}`);
  const goal =
    input.goalAchieved === undefined
      ? ''
      : ` · goal ${input.goalAchieved ? 'achieved' : 'not achieved'}`;
  const lines = [
    markerFor('summary', context, input.state),
    `## ${FINAL_LABELS[input.state]} — mr-agent summary`,
    '',
    `**Task**: ${oneLine(safeProse(input.title), 200)}`,
    '',
    safeProse(input.summary) || '_No summary._',
    '',
    '**Key Outcomes**:',
    bulletList(input.keyOutcomes),
    '',
    `**Tasks**: ${input.tasksCompleted} completed · ${input.tasksFailed} failed${goal}`,
    ...checks(input.validation),
    ...changes(input),
    '',
    facts.join(' · '),
  ];
  if (input.links.length > 0) {
    lines.push('', `**Links**: ${input.links.map((l) => link(l.label, l.url)).join(' · ')}`);
  }
  return `${lines.join('\n')}\n`;
}
