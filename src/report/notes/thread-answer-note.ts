/**
 * The answer in a review thread the run was asked to address (`/agent fix
 * this` in the thread, `/agent address-reviews`): the commit that addresses
 * it, linked by its short sha, before the thread is resolved; or why it
 * stays open. The model's own words, when it gave any, are quoted as
 * someone's text; the body goes through the note pipeline (redaction, quick
 * actions escaped, size).
 */
import type { Redactor } from '../../log/redact.ts';
import type { Language } from '../../messages/language.ts';
import { defineMessages } from '../../messages/catalog.ts';
import { inlineCode, link, oneLine, safeProse } from '../markdown.ts';
import { renderMarker } from '../marker.ts';
import { prepareNoteBody } from '../note-body.ts';
import { voiceOf } from '../progress/headline.ts';
import { EMOJI } from '../vocabulary.ts';
import { defineNote } from '../note-definition.ts';

export const THREAD_ANSWER_MESSAGES = defineMessages({
  en: {
    'threadAnswer.addressed': 'Addressed in {commit}; resolving the thread.',
    'threadAnswer.open': 'Not addressed: {why}. The thread stays open.',
    'threadAnswer.note': 'What was done: {note}',
    'threadAnswer.reason': 'Why: {note}',
    'threadAnswer.details': 'Details: {link}',
    'threadAnswer.progressNote': 'the progress note',
    'threadAnswer.why.noChange': 'the run ended without a change to push',
    'threadAnswer.why.notPushed': "the change did not go to this merge request's branch ({reason})",
    'threadAnswer.why.unfinished': 'the run did not finish the change ({reason})',
    'threadAnswer.why.notInChange': 'the pushed change does not address this thread',
    'threadAnswer.why.unknown': 'whether the pushed change addresses this thread could not be told',
  },
  ja: {
    'threadAnswer.addressed': '{commit} で対応しました。スレッドを解決済みにします。',
    'threadAnswer.open': '対応していません: {why}。スレッドは開いたままにします。',
    'threadAnswer.note': '対応内容: {note}',
    'threadAnswer.reason': '理由: {note}',
    'threadAnswer.details': '詳細: {link}',
    'threadAnswer.progressNote': '進捗ノート',
    'threadAnswer.why.noChange': 'プッシュする変更がないまま実行が終わりました',
    'threadAnswer.why.notPushed':
      '変更はこのマージリクエストのブランチに入りませんでした（{reason}）',
    'threadAnswer.why.unfinished': '実行は変更を終えられませんでした（{reason}）',
    'threadAnswer.why.notInChange': 'プッシュした変更はこのスレッドに対応していません',
    'threadAnswer.why.unknown':
      'プッシュした変更がこのスレッドに対応しているか判断できませんでした',
  },
});

export const THREAD_ANSWER_NOTE = defineNote({
  name: 'thread-answer',
  purpose:
    'the reply in a review thread the run addressed: the commit before the thread is resolved, or why it stays open',
  messages: THREAD_ANSWER_MESSAGES,
});

export type ThreadAnswerWhy =
  | { kind: 'no-change' }
  | { kind: 'not-pushed'; reason: string }
  | { kind: 'unfinished'; reason: string }
  | { kind: 'not-in-change' }
  | { kind: 'unknown' };

export type ThreadAnswer =
  | { addressed: true; commit: string; commitUrl: string | undefined; note?: string | undefined }
  | { addressed: false; why: ThreadAnswerWhy; note?: string | undefined };

interface Common {
  redactor: Redactor;
  language?: Language | undefined;
  /** The run's progress note, linked from an answer that leaves the thread open. */
  progressNoteUrl?: string | undefined;
}

const WHY_KEY = {
  'no-change': 'threadAnswer.why.noChange',
  'not-pushed': 'threadAnswer.why.notPushed',
  unfinished: 'threadAnswer.why.unfinished',
  'not-in-change': 'threadAnswer.why.notInChange',
  unknown: 'threadAnswer.why.unknown',
} as const;

export function renderThreadAnswer(answer: ThreadAnswer, input: Common): string {
  const v = voiceOf({ language: input.language }, THREAD_ANSWER_MESSAGES);
  const lines = [renderMarker({ kind: 'reply', state: answer.addressed ? 'addressed' : 'open' })];
  if (answer.addressed) {
    const short = inlineCode(answer.commit.slice(0, 8));
    const commit = answer.commitUrl ? link(short, answer.commitUrl) : short;
    lines.push(`${EMOJI.done} ${v.m('threadAnswer.addressed', { commit })}`);
  } else {
    const why = answer.why;
    const reason = 'reason' in why ? oneLine(safeProse(why.reason), 300) : '';
    lines.push(
      `${EMOJI.warning} ${v.m('threadAnswer.open', { why: v.m(WHY_KEY[why.kind], { reason }) })}`,
    );
  }
  if (answer.note) {
    const note = oneLine(safeProse(answer.note), 500);
    lines.push('', v.m(answer.addressed ? 'threadAnswer.note' : 'threadAnswer.reason', { note }));
  }
  if (!answer.addressed && input.progressNoteUrl)
    lines.push(
      '',
      v.m('threadAnswer.details', {
        link: link(v.m('threadAnswer.progressNote'), input.progressNoteUrl),
      }),
    );
  return prepareNoteBody(lines.join('\n'), { redactor: input.redactor });
}
