/**
 * The ❓ note asking the user for clarification (seed 003 §11.3, SPEC F4):
 * the questions, why they matter, and the assumptions the run goes on with
 * when nobody answers in time.
 */
import { bulletList, oneLine, safeProse } from '../markdown.ts';
import type { NoteContext } from './context.ts';
import { markerFor } from './context.ts';

export interface ClarificationNoteInput {
  questions: readonly string[];
  /** Why these questions are needed. */
  context: string;
  assumptions: readonly string[];
  /** `auto_assume_timeout_minutes`; 0 stops the run until someone replies. */
  waitMinutes: number;
  /** `auto_assume_on_no_response`. */
  autoAssume: boolean;
  /** Who may answer, e.g. `Developer`. */
  minAccessLabel?: string;
}

function whenNoResponse(input: ClarificationNoteInput): string[] {
  if (input.waitMinutes <= 0) {
    return [
      'The run is paused until someone replies in this thread; a reply resumes it.',
      ...(input.assumptions.length > 0
        ? ['If you want me to go on as I see it, I would assume:', bulletList(input.assumptions)]
        : []),
    ];
  }
  const wait = `${input.waitMinutes} ${input.waitMinutes === 1 ? 'minute' : 'minutes'}`;
  if (!input.autoAssume) {
    return [
      `Without an answer within ${wait}, the run stops and waits for a reply in this thread.`,
    ];
  }
  return [
    `I will wait ${wait}, then proceed with the following assumptions:`,
    bulletList(input.assumptions),
  ];
}

export function renderClarificationNote(
  input: ClarificationNoteInput,
  context: NoteContext,
): string {
  const questions =
    input.questions.length === 0
      ? ['1. _no question given_']
      : input.questions.map((q, i) => `${i + 1}. ${oneLine(safeProse(q), 1000)}`);
  const who = input.minAccessLabel
    ? `\n\n<sub>Only answers from members with at least ${input.minAccessLabel} access are used.</sub>`
    : '';
  const lines = [
    markerFor('clarification', context, input.waitMinutes <= 0 ? 'awaiting_answer' : 'waiting'),
    '## ❓ Clarification Needed (AI Decision)',
    '',
    "I've analyzed the task and need some clarification to proceed effectively:",
    '',
    '**Questions**:',
    ...questions,
    '',
    '**Context**:',
    safeProse(input.context) || '_not given_',
    '',
    '**If no response**:',
    ...whenNoResponse(input),
    '',
    `Please reply to this comment with your answers.${who}`,
  ];
  return `${lines.join('\n')}\n`;
}
