/**
 * Replies to control commands: `status` answers with the state of
 * the active or last run, `help` lists the commands. Both give the reply rule
 * in the same words as the ❓ note.
 */
import type { MessageKey } from '../../messages/en.ts';
import { formatDateTime } from '../../messages/format.ts';
import type { FinalState, PhaseName } from '../../core/progress/model.ts';
import { PHASES } from '../../core/progress/model.ts';
import { link, oneLine, safeProse } from '../markdown.ts';
import { phaseName, type Voice } from '../progress/headline.ts';
import { STATE_EMOJI } from '../vocabulary.ts';
import type { NoteContext } from './context.ts';
import { contextVoice, markerFor } from './context.ts';
import { defineMessages, type BlockKey } from '../../messages/catalog.ts';
import { defineNote } from '../note-definition.ts';

export const REPLY_MESSAGES = defineMessages({
  en: {
    'status.heading': 'mr-agent status:',
    'status.progress': '{done} of {total} steps done',
    'status.started': 'started {time}',
    'status.finished': 'finished {time}',
    'status.progressNote': 'progress note',
    'status.job': 'job',
    'status.pipeline': 'pipeline #{id}',
  },
  ja: {
    'status.heading': 'mr-agent の状態:',
    'status.progress': '{total} ステップ中 {done} 完了',
    'status.started': '開始 {time}',
    'status.finished': '終了 {time}',
    'status.progressNote': '進捗ノート',
    'status.job': 'ジョブ',
    'status.pipeline': 'パイプライン #{id}',
  },
});

/** The replies to `/agent status` and `/agent help`. */
export const REPLY_NOTE = defineNote({
  name: 'replies',
  purpose: 'the replies to `/agent status` and `/agent help`',
  messages: REPLY_MESSAGES,
});

export interface RunStatus {
  state: FinalState | 'running' | 'never_run';
  phase?: string;
  progress?: { done: number; total: number };
  startedAt?: number;
  finishedAt?: number;
  summary?: string;
  progressNoteUrl?: string;
  jobUrl?: string;
  /** The run's pipeline (the newest agent pipeline on the MR or issue). */
  pipeline?: { id: number; url?: string };
  /** The ❓ question a paused run waits on. */
  questionUrl?: string;
}

type ReplyVoice = Voice<BlockKey<typeof REPLY_MESSAGES>>;

function pipelineFact(status: RunStatus, v: ReplyVoice): string {
  if (!status.pipeline) return '';
  const text = v.m('status.pipeline', { id: String(status.pipeline.id) });
  return status.pipeline.url ? link(text, status.pipeline.url) : text;
}

export function renderStatusReply(status: RunStatus, context: NoteContext): string {
  const v = contextVoice(context, REPLY_MESSAGES);
  const emoji = status.state === 'never_run' ? '' : `${STATE_EMOJI[status.state]} `;
  const head = [`${emoji}${v.m(`state.${status.state}` as MessageKey)}`];
  if (status.phase) {
    const known = (PHASES as readonly string[]).includes(status.phase);
    head.push(
      known ? phaseName(v, status.phase as PhaseName) : oneLine(safeProse(status.phase), 80),
    );
  }
  if (status.progress) head.push(v.m('status.progress', status.progress));
  const facts = [
    status.startedAt !== undefined
      ? v.m('status.started', { time: formatDateTime(status.startedAt, v.language) })
      : '',
    status.finishedAt !== undefined
      ? v.m('status.finished', { time: formatDateTime(status.finishedAt, v.language) })
      : '',
    status.progressNoteUrl ? link(v.m('status.progressNote'), status.progressNoteUrl) : '',
    status.jobUrl ? link(v.m('status.job'), status.jobUrl) : '',
    pipelineFact(status, v),
  ].filter(Boolean);
  const lines = [
    markerFor('reply', context, status.state),
    `**${v.m('status.heading')}** ${head.join(' · ')}`,
  ];
  if (facts.length > 0) lines.push('', facts.join(' · '));
  if (status.summary) lines.push('', oneLine(safeProse(status.summary), 300));
  if (status.state === 'awaiting_answer') {
    const open = status.questionUrl ? ` ${link(v.m('next.openQuestion'), status.questionUrl)}` : '';
    lines.push('', `**${v.m('next.label')}** ${v.m('rule.reply')}${open}`);
  }
  if (status.state === 'paused')
    lines.push(
      '',
      `**${v.m('next.label')}** ${v.m('next.paused', { resume: v.command('resume') })}`,
    );
  return `${lines.join('\n')}\n`;
}

/**
 * One line of the command list: the verb (none for the one a bare
 * instruction is), whether an instruction follows it, and its catalog key.
 */
export interface HelpEntry {
  verb?: string | undefined;
  instruction: boolean;
  key: MessageKey;
  /** Placeholders of the line that name another command (`{plan}` → `/agent plan`). */
  mentions?: Readonly<Record<string, string>> | undefined;
}

/** The command list (the bridge's `/agent help` reply and the job's), one line per entry. */
export function helpLines(context: NoteContext, commands: readonly HelpEntry[]): string[] {
  const v = contextVoice(context);
  const instruction = v.m('help.instruction');
  const line = (entry: HelpEntry) => {
    const words = [entry.verb, entry.instruction ? instruction : undefined].filter(Boolean);
    const mentions = Object.entries(entry.mentions ?? {});
    const params = Object.fromEntries(mentions.map(([name, verb]) => [name, v.command(verb)]));
    return `- ${v.command(words.join(' '))} — ${v.m(entry.key, params)}`;
  };
  return [
    `**${v.m('help.heading')}**`,
    '',
    ...commands.map(line),
    '',
    v.m('help.where'),
    '',
    v.m('rule.reply'),
  ];
}

export function renderHelpReply(context: NoteContext, commands: readonly HelpEntry[]): string {
  return `${[markerFor('reply', context), ...helpLines(context, commands)].join('\n')}\n`;
}
