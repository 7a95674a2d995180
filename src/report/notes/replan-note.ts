/**
 * The 🔄 note posted when the LLM decides on a replan (seed 003 §11.1–§11.2),
 * also when the decision was overridden (limit reached, low confidence,
 * repeated trigger) and therefore not carried out.
 */
import { formatTimestamp } from '../format.ts';
import { bulletList, oneLine, safeProse } from '../markdown.ts';
import type { NoteContext } from './context.ts';
import { markerFor, phaseDisplayName } from './context.ts';

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

function confidencePercent(confidence: number): string {
  const clamped = Math.min(Math.max(confidence, 0), 1);
  return `${Math.round(clamped * 100)}%`;
}

export function renderReplanNote(input: ReplanNoteInput, context: NoteContext): string {
  const lines = [
    markerFor('replan', context),
    '## 🔄 Plan Revision Decided by AI',
    '',
    `**Phase**: ${phaseDisplayName(input.phase)}`,
    '',
    `**Confidence**: ${confidencePercent(input.confidence)}`,
  ];
  if (input.replanType) {
    const level = input.replanLevel === undefined ? '' : ` (level ${input.replanLevel})`;
    lines.push('', `**Replan Type**: ${oneLine(safeProse(input.replanType), 60)}${level}`);
  }
  if (input.executed === false) {
    const why = input.overrideReason ? `: ${oneLine(safeProse(input.overrideReason), 300)}` : '';
    lines.push('', `**Not carried out**${why}`);
  }
  lines.push(
    '',
    '**Reasoning**:',
    safeProse(input.reasoning) || '_not given_',
    '',
    '**Issues Found**:',
    bulletList(input.issuesFound),
    '',
    '**Recommended Actions**:',
    bulletList(input.recommendedActions),
    '',
    `*${formatTimestamp(input.at)}*`,
  );
  return `${lines.join('\n')}\n`;
}
