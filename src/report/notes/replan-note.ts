/**
 * The 🔁 note posted when the model decides on a replan, also when the
 * decision was overridden (limit reached, low
 * confidence, repeated trigger) and therefore not carried out. The
 * reasoning is in front; issues and recommended actions are folded.
 */
import { NAMED_REPLAN_KINDS } from '../progress/replans.ts';
import type { MessageKey } from '../../messages/en.ts';
import { formatDateTime, formatPercent } from '../../messages/format.ts';
import { bulletList, oneLine, safeProse } from '../markdown.ts';
import { EMOJI } from '../vocabulary.ts';
import type { NoteContext } from './context.ts';
import { checkpointName, contextVoice, markerFor } from './context.ts';
import { defineMessages } from '../../messages/catalog.ts';
import { defineNote } from '../note-definition.ts';

export const REPLAN_MESSAGES = defineMessages({
  en: {
    'replan.heading': 'Plan revised at {point}',
    'replan.headingNotDone': 'Plan revision proposed at {point}, not carried out',
    'replan.confidence': '{percent} confident',
    'replan.kind': 'Change: {kind}',
    'replan.notDone': 'Not carried out: {reason}',
    'replan.next': 'nothing needed from you; the run goes on with the revised plan.',
    'replan.nextNotDone': 'nothing needed from you; the run goes on with the current plan.',
    'replan.details': 'Issues found and recommended actions',
    'replan.issues': 'Issues found:',
    'replan.actions': 'Recommended actions:',
    'replan.none': 'none',
  },
  ja: {
    'replan.heading': '{point}で計画を修正しました',
    'replan.headingNotDone': '{point}で計画の修正が提案されましたが、実施していません',
    'replan.confidence': '確信度 {percent}',
    'replan.kind': '変更内容: {kind}',
    'replan.notDone': '実施しなかった理由: {reason}',
    'replan.next': 'いまは対応不要です。修正した計画で実行を続けます。',
    'replan.nextNotDone': 'いまは対応不要です。現在の計画のまま実行を続けます。',
    'replan.details': '見つかった問題と推奨される対応',
    'replan.issues': '見つかった問題:',
    'replan.actions': '推奨される対応:',
    'replan.none': 'なし',
  },
});

/** The 🔁 plan revision the model decided on, carried out or not. */
export const REPLAN_NOTE = defineNote({
  name: 'replan',
  purpose: 'the 🔁 plan revision the model decided on, carried out or not',
  messages: REPLAN_MESSAGES,
});

export interface ReplanNoteInput {
  /** Where the decision was made: `goal_understanding`, `task_decomposition`, `execution`, … */
  phase: string;
  /** 0.0–1.0 as the model gave it. */
  confidence: number;
  reasoning: string;
  issuesFound: readonly string[];
  recommendedActions: readonly string[];
  replanType?: string;
  replanLevel?: number;
  /** False when an override stopped the replan; the reason says why. */
  executed?: boolean;
  overrideReason?: string;
  at: number;
}

export function renderReplanNote(input: ReplanNoteInput, context: NoteContext): string {
  const v = contextVoice(context, REPLAN_MESSAGES);
  const done = input.executed !== false;
  const point = checkpointName(v, input.phase);
  const confidence = Math.min(Math.max(input.confidence, 0), 1);
  const facts = [
    v.m('replan.confidence', {
      percent: formatPercent(Math.round(confidence * 100), 100, v.language),
    }),
  ];
  if (input.replanType && NAMED_REPLAN_KINDS.has(input.replanType))
    facts.push(v.m('replan.kind', { kind: v.m(`replan.kind.${input.replanType}` as MessageKey) }));
  facts.push(formatDateTime(input.at, v.language));
  const lines = [
    markerFor('replan', context),
    `### ${EMOJI.revised} ${v.m(done ? 'replan.heading' : 'replan.headingNotDone', { point })}`,
    '',
    facts.join(' · '),
    '',
    `**${v.m('next.label')}** ${v.m(done ? 'replan.next' : 'replan.nextNotDone')}`,
  ];
  if (!done && input.overrideReason)
    lines.push(
      '',
      v.m('replan.notDone', { reason: oneLine(safeProse(input.overrideReason), 300) }),
    );
  const reasoning = safeProse(input.reasoning);
  if (reasoning) lines.push('', reasoning);
  const none = `- _${v.m('replan.none')}_`;
  lines.push(
    '',
    '<details>',
    `<summary>${v.m('replan.details')}</summary>`,
    '',
    `**${v.m('replan.issues')}**`,
    '',
    bulletList(input.issuesFound, none),
    '',
    `**${v.m('replan.actions')}**`,
    '',
    bulletList(input.recommendedActions, none),
    '',
    '</details>',
  );
  return `${lines.join('\n')}\n`;
}
