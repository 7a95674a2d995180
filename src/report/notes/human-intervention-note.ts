/**
 * The 🙋 note asking for a person when the plan-revision limit is reached or
 * the run cannot converge: addressed to the
 * requester, why and how far it got (in numbers, not configuration names),
 * the next step, and what to look at (the model's findings). The
 * completion's `reason` and `current_state` are code-written English; they stay in the
 * Task Note and result.json. The data is the completion assessment's JSON
 * with `status: "requires_human_intervention"`.
 */
import * as z from 'zod';
import { bulletList, link } from '../markdown.ts';
import { EMOJI } from '../vocabulary.ts';
import type { NoteContext } from './context.ts';
import { contextVoice, markerFor, mention, titleSuffix } from './context.ts';
import { defineMessages } from '../../messages/catalog.ts';
import { defineNote } from '../note-definition.ts';

export const HUMAN_MESSAGES = defineMessages({
  en: {
    'human.heading': '{mention}I need a person to step in',
    'human.why': 'Why:',
    'human.whyLine': '{reason}. {pushed}; {progress}',
    'human.progress': {
      one: '{done} of {total} steps done, 1 failed.',
      other: '{done} of {total} steps done, {count} failed.',
    },
    'human.look': 'What I would look at:',
    'human.taskNote': 'The {taskNote} has every action with its tool output.',
  },
  ja: {
    'human.heading': '{mention}人の判断が必要です',
    'human.why': '理由:',
    'human.whyLine': '{reason}。{pushed}。{progress}',
    'human.progress': {
      one: '{total} ステップ中 {done} 完了、{count} 件失敗。',
      other: '{total} ステップ中 {done} 完了、{count} 件失敗。',
    },
    'human.look': '確認してほしい点:',
    'human.taskNote': '{taskNote}に、各アクションとツールの出力がすべて記録されています。',
  },
});

/** The 🙋 call for a person when the run stops converging. */
export const HUMAN_INTERVENTION_NOTE = defineNote({
  name: 'human-intervention',
  purpose: 'the 🙋 call for a person when the run stops converging',
  messages: HUMAN_MESSAGES,
});

export const HumanInterventionResult = z.object({
  phase: z.literal('completion'),
  status: z.literal('requires_human_intervention'),
  summary: z.object({
    goal_achieved: z.boolean(),
    tasks_completed: z.number().int().min(0),
    tasks_failed: z.number().int().min(0),
    revision_attempts: z.number().int().min(0),
    reason: z.string(),
    current_state: z.string(),
    recommendations: z.array(z.string()),
  }),
  comment: z.string(),
});
export type HumanInterventionResult = z.infer<typeof HumanInterventionResult>;

export interface HumanInterventionNoteOptions {
  /** The Task Note (job artifact), linked for the full record. */
  taskNoteUrl?: string;
}

export function renderHumanInterventionNote(
  result: HumanInterventionResult,
  context: NoteContext,
  options: HumanInterventionNoteOptions = {},
): string {
  const v = contextVoice(context, HUMAN_MESSAGES);
  const s = result.summary;
  const count = s.revision_attempts;
  const reason = count > 0 ? v.m('facts.humanReason', { count }) : v.m('facts.humanReasonNone');
  const total = s.tasks_completed + s.tasks_failed;
  const progress = v.m('human.progress', { done: s.tasks_completed, total, count: s.tasks_failed });
  const command = v.command(v.m('help.instruction'));
  const lines = [
    markerFor('human-intervention', context, 'needs_human'),
    `### ${EMOJI.human} ${v.m('human.heading', { mention: mention(context) })}${titleSuffix(context)}`,
    '',
    `**${v.m('human.why')}** ${v.m('human.whyLine', { reason, pushed: v.m('facts.nothingPushed'), progress })}`,
    '',
    `**${v.m('next.label')}** ${v.m('next.needsHuman', { note: v.m('next.humanNote'), command })}`,
  ];
  if (s.recommendations.length > 0)
    lines.push('', `**${v.m('human.look')}**`, '', bulletList(s.recommendations));
  if (options.taskNoteUrl) {
    const taskNote = link(v.m('links.taskNote'), options.taskNoteUrl);
    lines.push('', v.m('human.taskNote', { taskNote }));
  }
  if (context.jobUrl)
    lines.push(
      '',
      `<sub>${link(v.m('facts.viewJob', { id: context.jobId ?? '?' }), context.jobUrl)}</sub>`,
    );
  return `${lines.join('\n')}\n`;
}
