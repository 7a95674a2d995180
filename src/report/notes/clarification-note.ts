/**
 * The ❓ note asking the people on the request:
 * addressed to the requester, each question with what happens if it is not
 * answered, why it is asked, the one reply rule and the deadline as a clock
 * time. Its marker state (`waiting`, `awaiting_answer`, later `answered`,
 * `assumed`) tells the trigger whether a reply resumes a run.
 */
import { formatClockTime, formatDuration } from '../../messages/format.ts';
import { bulletList, link, oneLine, safeProse } from '../markdown.ts';
import { EMOJI } from '../vocabulary.ts';
import type { Voice } from '../progress/headline.ts';
import type { NoteContext } from './context.ts';
import { contextVoice, markerFor, mention, titleSuffix } from './context.ts';
import { defineMessages, type BlockKey } from '../../messages/catalog.ts';
import { defineNote } from '../note-definition.ts';

export const CLARIFICATION_MESSAGES = defineMessages({
  en: {
    'clarify.heading': {
      one: '{mention}1 question before I continue',
      other: '{mention}{count} questions before I continue',
    },
    'clarify.default': 'If not answered: {assumption}',
    'clarify.noQuestion': 'no question was given',
    'clarify.why': '*Why I’m asking:* {context}',
    'clarify.assume': 'If nobody answers, I will assume:',
    'clarify.deadlineAssume': 'At {time} (in {wait}) I will go on with the defaults above.',
    'clarify.deadlineAssumeNoTime': 'In {wait} I will go on with the defaults above.',
    'clarify.deadlineStop':
      'Without an answer by {time} (in {wait}), the run stops and waits for a reply here.',
    'clarify.deadlineStopNoTime':
      'Without an answer within {wait}, the run stops and waits for a reply here.',
    'clarify.paused': 'The run is paused until someone replies here.',
    'clarify.who': 'Answers from members with {level} access or higher are used',
    'role.guest': 'Guest',
    'role.planner': 'Planner',
    'role.reporter': 'Reporter',
    'role.developer': 'Developer',
    'role.maintainer': 'Maintainer',
    'role.owner': 'Owner',
    'clarify.answered': '✅ Answered by {who}: going on with the answers.',
    'clarify.assumed': '⏭️ No answer within {wait}: going on with the defaults above.',
    'clarify.stopped':
      '❓ No answer within {wait}: the run has stopped; a reply in this thread resumes it.',
    'clarify.replyHere':
      '**Reply in this thread**, no `/agent` needed: one line per question, for example {example}.',
    'clarify.yourAnswer': '<your answer>',
  },
  ja: {
    'clarify.heading': {
      one: '{mention}続行する前に確認したいことが {count} 件あります',
      other: '{mention}続行する前に確認したいことが {count} 件あります',
    },
    'clarify.default': '回答がない場合: {assumption}',
    'clarify.noQuestion': '質問の記載がありません',
    'clarify.why': '*質問の理由:* {context}',
    'clarify.assume': '回答がない場合は次のように想定します:',
    'clarify.deadlineAssume':
      '{time}（{wait}後）までに回答がなければ、上の既定の内容で続行します。',
    'clarify.deadlineAssumeNoTime': '{wait}以内に回答がなければ、上の既定の内容で続行します。',
    'clarify.deadlineStop':
      '{time}（{wait}後）までに回答がなければ、実行を止めてここへの返信を待ちます。',
    'clarify.deadlineStopNoTime':
      '{wait}以内に回答がなければ、実行を止めてここへの返信を待ちます。',
    'clarify.paused': 'ここに返信があるまで実行を一時停止しています。',
    'clarify.who': '{level}以上の権限を持つメンバーの回答のみ使います',
    'role.guest': 'ゲスト',
    'role.planner': 'プランナー',
    'role.reporter': 'レポーター',
    'role.developer': 'デベロッパー',
    'role.maintainer': 'メンテナー',
    'role.owner': 'オーナー',
    'clarify.answered': '✅ {who} さんが回答しました: 回答に沿って続行します。',
    'clarify.assumed': '⏭️ {wait}以内に回答がありませんでした: 上の既定の内容で続行します。',
    'clarify.stopped':
      '❓ {wait}以内に回答がありませんでした: 実行を停止しました。このスレッドに返信すると再開します。',
    'clarify.replyHere':
      '**このスレッドに返信してください**（`/agent` は不要）。質問ごとに 1 行で、例: {example}。',
    'clarify.yourAnswer': '<回答>',
  },
});

/** The ❓ questions thread, with the defaults the run assumes without an answer. */
export const CLARIFICATION_NOTE = defineNote({
  name: 'clarification',
  purpose: 'the ❓ questions thread, with the defaults the run assumes without an answer',
  messages: CLARIFICATION_MESSAGES,
});

export interface ClarificationNoteInput {
  questions: readonly string[];
  /** Why these questions are needed. */
  context: string;
  /** What the run goes on with when nobody answers (one per question, when paired). */
  assumptions: readonly string[];
  /** `auto_assume_timeout_minutes`; 0 stops the run until someone replies. */
  waitMinutes: number;
  /** `auto_assume_on_no_response`. */
  autoAssume: boolean;
  /** Who may answer, e.g. `Developer`. */
  minAccessLabel?: string;
  /** When the question was asked (epoch ms): the deadline is shown as a clock time. */
  askedAt?: number;
  /**
   * How the question was settled: the heading then says so, and the deadline
   * and the call to answer go away (a stopped run still takes a reply).
   */
  settled?: { state: ClarificationSettled; answeredBy: readonly string[] };
}

function questionList(input: ClarificationNoteInput, context: NoteContext): string[] {
  const v = contextVoice(context, CLARIFICATION_MESSAGES);
  const paired = input.assumptions.length === input.questions.length;
  if (input.questions.length === 0) return [`1. _${v.m('clarify.noQuestion')}_`];
  return input.questions.map((q, i) => {
    const line = `${i + 1}. **${oneLine(safeProse(q), 1000).replace(/\*/g, '\\*')}**`;
    const assumption = paired ? input.assumptions[i] : undefined;
    if (!assumption) return line;
    const text = v.m('clarify.default', { assumption: oneLine(safeProse(assumption), 500) });
    return `${line}  \n   ${text}`;
  });
}

function deadline(input: ClarificationNoteInput, context: NoteContext): string {
  const v = contextVoice(context, CLARIFICATION_MESSAGES);
  if (input.waitMinutes <= 0) return v.m('clarify.paused');
  const wait = formatDuration(input.waitMinutes * 60_000, v.language);
  if (input.askedAt === undefined) {
    return v.m(input.autoAssume ? 'clarify.deadlineAssumeNoTime' : 'clarify.deadlineStopNoTime', {
      wait,
    });
  }
  const time = formatClockTime(input.askedAt + input.waitMinutes * 60_000, v.language);
  return v.m(input.autoAssume ? 'clarify.deadlineAssume' : 'clarify.deadlineStop', { time, wait });
}

const ROLES = new Set(['guest', 'planner', 'reporter', 'developer', 'maintainer', 'owner']);

/** GitLab's role name in the note's language: `developer` → `Developer`, `デベロッパー`. */
function roleName(level: string, v: Voice<BlockKey<typeof CLARIFICATION_MESSAGES>>): string {
  const role = level.toLowerCase();
  return ROLES.has(role)
    ? v.m(`role.${role}` as BlockKey<typeof CLARIFICATION_MESSAGES>)
    : level.charAt(0).toUpperCase() + level.slice(1);
}

/** How to answer, with an example reply (one line per question). */
function replyHere(input: ClarificationNoteInput, context: NoteContext): string {
  const v = contextVoice(context, CLARIFICATION_MESSAGES);
  const count = Math.max(1, Math.min(input.questions.length, 3));
  const example = Array.from(
    { length: count },
    (_, i) => `\`${i + 1}. ${v.m('clarify.yourAnswer')}\``,
  ).join(' ');
  return v.m('clarify.replyHere', { example });
}

export function renderClarificationNote(
  input: ClarificationNoteInput,
  context: NoteContext,
): string {
  const v = contextVoice(context, CLARIFICATION_MESSAGES);
  const count = Math.max(1, input.questions.length);
  const settled = input.settled;
  const heading = settled
    ? renderClarificationSettled(
        settled.state,
        { waitMinutes: input.waitMinutes, answeredBy: settled.answeredBy },
        context,
      ).replace(/[.。]$/, '')
    : `${EMOJI.question} ${v.m('clarify.heading', { count, mention: mention(context) })}`;
  const state = settled?.state ?? (input.waitMinutes <= 0 ? 'awaiting_answer' : 'waiting');
  const lines = [
    markerFor('clarification', context, state),
    `### ${heading}${titleSuffix(context)}`,
    '',
    ...questionList(input, context),
  ];
  const why = oneLine(safeProse(input.context), 1000);
  if (why) lines.push('', v.m('clarify.why', { context: why }));
  const paired = input.assumptions.length === input.questions.length;
  if (!paired && input.assumptions.length > 0)
    lines.push('', v.m('clarify.assume'), '', bulletList(input.assumptions));
  if (!settled) lines.push('', v.sentences(replyHere(input, context), deadline(input, context)));
  else if (settled.state === 'awaiting_answer') lines.push('', replyHere(input, context));
  const small = [
    input.minAccessLabel ? v.m('clarify.who', { level: roleName(input.minAccessLabel, v) }) : '',
    context.jobUrl ? link(v.m('facts.viewJob', { id: context.jobId ?? '?' }), context.jobUrl) : '',
  ].filter(Boolean);
  if (small.length > 0) lines.push('', `<sub>${small.join(' · ')}</sub>`);
  return `${lines.join('\n')}\n`;
}

export type ClarificationSettled = 'answered' | 'assumed' | 'awaiting_answer';

/** The line added to the ❓ note (or its thread) once the question is settled. */
export function renderClarificationSettled(
  state: ClarificationSettled,
  info: { waitMinutes: number; answeredBy: readonly string[] },
  context: NoteContext,
): string {
  const v = contextVoice(context, CLARIFICATION_MESSAGES);
  const wait = formatDuration(info.waitMinutes * 60_000, v.language);
  switch (state) {
    case 'answered': {
      const who = [...new Set(info.answeredBy.map((u) => `@${u.replace(/[^\w.-]/g, '')}`))].join(
        ', ',
      );
      return v.m('clarify.answered', { who: oneLine(who, 200) });
    }
    case 'assumed':
      return v.m('clarify.assumed', { wait });
    case 'awaiting_answer':
      return v.m('clarify.stopped', { wait });
  }
}
