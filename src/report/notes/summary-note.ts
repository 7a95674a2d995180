/**
 * The closing reply of a run, posted as a new note so GitLab notifies the
 * requester about the end: one short reply, not a second copy of the
 * progress note.
 */
import { renderMarker } from '../marker.ts';
import type { MessageKey } from '../../messages/en.ts';
import type { ProgressState } from '../../core/progress/model.ts';
import { link, oneLine, safeProse } from '../markdown.ts';
import { changeLine, nextLine, noteState, voiceOf } from '../progress/headline.ts';
import { STATE_EMOJI } from '../vocabulary.ts';
import { mention } from './context.ts';
import { defineMessages } from '../../messages/catalog.ts';
import { defineNote } from '../note-definition.ts';

export const SUMMARY_MESSAGES = defineMessages({
  en: {
    'summary.state': '{emoji} **{state}** · {title}',
    'summary.details': 'The details and the next step are in the {progress}.',
    'summary.progressNote': 'progress note',
  },
  ja: {
    'summary.state': '{emoji} **{state}** · {title}',
    'summary.details': '詳細と次にすることは{progress}にあります。',
    'summary.progressNote': '進捗ノート',
  },
});

/** The closing reply: who asked is notified, the progress note holds the rest. */
export const SUMMARY_NOTE = defineNote({
  name: 'summary',
  purpose:
    'the closing reply: one short note that @mentions the requester with the outcome and links the progress note',
  messages: SUMMARY_MESSAGES,
});

export interface SummaryLinks {
  /** The run's progress note. */
  progressNote?: string;
  /** Who asked for the run (GitLab username), mentioned so GitLab notifies them. */
  requester?: string;
}

/**
 * The closing reply for the final progress state `s`: the requester, the
 * state and what changed on one line, then where the rest is — the progress
 * note, which it does not repeat (one note per run; this reply exists so
 * GitLab notifies about the end). Without a progress note to link, the next
 * step is said here.
 */
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
  const who = mention({
    taskId: s.taskId,
    ...(extra.requester ? { requester: extra.requester } : {}),
  });
  const title = oneLine(safeProse(s.title), 200) || s.taskId;
  const head = v.m('summary.state', {
    emoji: STATE_EMOJI[state],
    state: v.m(`state.${state}` as MessageKey),
    title,
  });
  const rest = extra.progressNote
    ? v.m('summary.details', { progress: link(v.m('summary.progressNote'), extra.progressNote) })
    : nextLine(s, v);
  const lines = [marker, `${who}${head}`, '', changeLine(s, v), '', rest];
  return `${lines.join('\n')}\n`;
}
