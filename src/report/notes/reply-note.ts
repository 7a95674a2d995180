/**
 * Short replies to control commands (SPEC A6): `status` answers with the
 * state of the last run, `help` lists the commands. Kept simple on purpose.
 */
import { formatTimestamp, percent } from '../format.ts';
import { inlineCode, link, oneLine, safeProse } from '../markdown.ts';
import type { FinalState } from '../../core/progress.ts';
import type { NoteContext } from './context.ts';
import { markerFor } from './context.ts';

export interface RunStatus {
  state: FinalState | 'running' | 'never_run';
  phase?: string;
  progress?: { done: number; total: number };
  startedAt?: number;
  finishedAt?: number;
  summary?: string;
  progressNoteUrl?: string;
  jobUrl?: string;
}

const STATE_LABELS: Readonly<Record<RunStatus['state'], string>> = {
  running: '🔄 running',
  never_run: 'no run yet',
  complete: '✅ complete',
  failed: '❌ failed',
  cancelled: '🛑 cancelled',
  interrupted: '⚠️ interrupted (the job ended without writing its final state)',
  awaiting_answer: '❓ waiting for an answer',
  needs_human: '🙋 needs human help',
};

export function renderStatusReply(status: RunStatus, context: NoteContext): string {
  const lines = [
    markerFor('reply', context, status.state),
    `**mr-agent status**: ${STATE_LABELS[status.state]}`,
    '',
  ];
  if (status.phase) lines.push(`- Phase: ${oneLine(safeProse(status.phase), 80)}`);
  if (status.progress) {
    const { done, total } = status.progress;
    lines.push(`- Plan: ${done}/${total} (${percent(done, total)}) complete`);
  }
  if (status.startedAt !== undefined) lines.push(`- Started: ${formatTimestamp(status.startedAt)}`);
  if (status.finishedAt !== undefined)
    lines.push(`- Finished: ${formatTimestamp(status.finishedAt)}`);
  if (status.summary) lines.push(`- Summary: ${oneLine(safeProse(status.summary), 300)}`);
  const links = [
    status.progressNoteUrl ? link('progress note', status.progressNoteUrl) : '',
    status.jobUrl ? link('job', status.jobUrl) : '',
  ].filter(Boolean);
  if (links.length > 0) lines.push(`- Links: ${links.join(' · ')}`);
  return `${lines.join('\n')}\n`;
}

export function renderHelpReply(context: NoteContext, commandPrefix = '/agent'): string {
  const cmd = (rest: string) => inlineCode(`${commandPrefix}${rest}`);
  const lines = [
    markerFor('reply', context),
    '**mr-agent commands**',
    '',
    `- ${cmd(' <instruction>')} — start a run that carries out the instruction on this merge request or issue`,
    `- ${cmd(' status')} — show the state of the last run`,
    `- ${cmd(' stop')} — cancel the running agent pipeline`,
    `- ${cmd(' help')} — show this list`,
    '',
    'Answer a ❓ clarification note by replying in its thread.',
  ];
  return `${lines.join('\n')}\n`;
}
