/**
 * The 🔁 note posted when the model decides on a replan (seed 003
 * §11.1–§11.2), also when the decision was overridden (limit reached, low
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
  const v = contextVoice(context);
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
