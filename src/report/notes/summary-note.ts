/**
 * The final summary note of a run (the completion summary),
 * posted as a new note so GitLab notifies about the end of the run. It opens
 * like the final progress note (state, change, next step), then the result,
 * the acceptance criteria, the files changed and the links to the progress
 * note, the job, the commit and the Task Note.
 */
import { renderMarker } from '../marker.ts';
import { formatCost, formatDuration } from '../../messages/format.ts';
import type { ProgressState } from '../../core/progress/model.ts';
import { inlineCode, keepLineBreaks, link, oneLine, safeProse } from '../markdown.ts';
import { headline, noteState, shortSha, voiceOf, type Voice } from '../progress/headline.ts';
import { criteriaSection } from '../progress/render.ts';
import { defineMessages, type BlockKey } from '../../messages/catalog.ts';
import { defineNote } from '../note-definition.ts';

export const SUMMARY_MESSAGES = defineMessages({
  en: {
    'summary.filesHeading': 'Files changed:',
    'summary.more': 'and {count} more',
    'summary.progressNote': 'Progress note',
    'summary.job': 'Job #{id}',
    'summary.commit': 'Commit {sha}',
    'summary.cost': 'estimated cost {cost}',
  },
  ja: {
    'summary.filesHeading': '変更したファイル:',
    'summary.more': 'ほか {count} 件',
    'summary.progressNote': '進捗ノート',
    'summary.job': 'ジョブ #{id}',
    'summary.commit': 'コミット {sha}',
    'summary.cost': '推定コスト {cost}',
  },
});

/** The final summary posted as a new note, so people are notified of the end. */
export const SUMMARY_NOTE = defineNote({
  name: 'summary',
  purpose: 'the final summary posted as a new note, so people are notified of the end',
  messages: SUMMARY_MESSAGES,
});

export interface SummaryLinks {
  /** The run's progress note. */
  progressNote?: string;
}

const MAX_FILES = 10;

type SummaryVoice = Voice<BlockKey<typeof SUMMARY_MESSAGES>>;

function files(s: ProgressState, v: SummaryVoice): string[] {
  const list = s.facts?.changedFiles ?? [];
  if (list.length === 0) return [];
  const shown = list.slice(0, MAX_FILES).map((f) => inlineCode(oneLine(f, 200)));
  const more =
    list.length > MAX_FILES ? [v.m('summary.more', { count: list.length - MAX_FILES })] : [];
  return ['', `**${v.m('summary.filesHeading')}** ${[...shown, ...more].join(v.m('punct.comma'))}`];
}

function links(s: ProgressState, v: SummaryVoice, extra: SummaryLinks): string[] {
  const d = s.facts?.delivery;
  const parts = [
    extra.progressNote ? link(v.m('summary.progressNote'), extra.progressNote) : '',
    s.jobUrl ? link(v.m('summary.job', { id: s.jobId ?? '?' }), s.jobUrl) : '',
    d?.commit && d.commitUrl
      ? link(v.m('summary.commit', { sha: shortSha(d.commit) }), d.commitUrl)
      : '',
    s.facts?.taskNoteUrl ? link(v.m('links.taskNote'), s.facts.taskNoteUrl) : '',
  ].filter(Boolean);
  return parts.length > 0 ? ['', parts.join(' · ')] : [];
}

function footer(s: ProgressState, v: SummaryVoice): string {
  let tokens = 0;
  for (const u of Object.values(s.usage.byRole)) tokens += u.promptTokens + u.completionTokens;
  const parts = ['mr-agent'];
  if (s.final) parts.push(formatDuration(s.final.finishedAt - s.startedAt, v.language));
  if (tokens > 0) parts.push(v.m('details.tokens', { count: tokens }));
  if (s.usage.costUsd !== undefined)
    parts.push(v.m('summary.cost', { cost: formatCost(s.usage.costUsd, v.language) }));
  return `<sub>${parts.join(' · ')}</sub>`;
}

/** The summary note for the final progress state `s`. */
export function renderSummaryNote(s: ProgressState, extra: SummaryLinks = {}): string {
  const v = voiceOf(s, SUMMARY_MESSAGES);
  const state = noteState(s);
  const marker = renderMarker({
    kind: 'summary',
    job: s.jobId,
    pipeline: s.pipelineId,
    task: s.taskId,
    state,
  });
  const result =
    state === 'complete'
      ? ['', keepLineBreaks(safeProse(s.final?.summary ?? '')) || `_${v.m('result.none')}_`]
      : [];
  const lines = [
    marker,
    ...headline(s, v),
    ...result,
    ...criteriaSection(s, v),
    ...files(s, v),
    ...links(s, v, extra),
    '',
    footer(s, v),
  ];
  return `${lines.join('\n')}\n`;
}
