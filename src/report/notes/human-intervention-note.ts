/**
 * The note asking for human help when the plan-revision limit is exceeded or
 * the run cannot converge (seed 001 §10.4, SPEC F2). The data is the seed's
 * completion JSON with `status: "requires_human_intervention"`.
 */
import { z } from 'zod';
import { bulletList, oneLine, safeProse } from '../markdown.ts';
import type { NoteContext } from './context.ts';
import { markerFor } from './context.ts';

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
  /** The comment prefix that starts a new run, e.g. `/agent`. */
  commandPrefix?: string;
}

export function renderHumanInterventionNote(
  result: HumanInterventionResult,
  context: NoteContext,
  options: HumanInterventionNoteOptions = {},
): string {
  const s = result.summary;
  const prefix = options.commandPrefix ?? '/agent';
  const lines = [
    markerFor('human-intervention', context, 'needs_human'),
    '## 🙋 Human Intervention Needed',
    '',
    safeProse(result.comment) || 'Automatic processing cannot go on; a person needs to step in.',
    '',
    `**Reason**: ${oneLine(safeProse(s.reason), 500)}`,
    '',
    '| Goal achieved | Tasks completed | Tasks failed | Revision attempts |',
    '| --- | ---: | ---: | ---: |',
    `| ${s.goal_achieved ? '✅ yes' : '❌ no'} | ${s.tasks_completed} | ${s.tasks_failed} | ${s.revision_attempts} |`,
    '',
    '**Current State**:',
    safeProse(s.current_state) || '_not given_',
    '',
    '**Recommendations**:',
    bulletList(s.recommendations),
    '',
    `To continue, answer with new guidance in a comment starting with \`${prefix}\`, or finish the change by hand.`,
  ];
  return `${lines.join('\n')}\n`;
}
