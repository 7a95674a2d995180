/**
 * The ❓ note asking the people on the request (seed 003 §11.3, SPEC F4):
 * addressed to the requester, each question with what happens if it is not
 * answered, why it is asked, the one reply rule and the deadline as a clock
 * time. Its marker state (`waiting`, `awaiting_answer`, later `answered`,
 * `assumed`) tells the trigger whether a reply resumes a run.
 */
import { formatClockTime, formatDuration } from '../../messages/format.ts';
import { bulletList, link, oneLine, safeProse } from '../markdown.ts';
import { EMOJI } from '../vocabulary.ts';
import type { MessageKey } from '../../messages/en.ts';
import type { Voice } from '../progress/headline.ts';
import type { NoteContext } from './context.ts';
import { contextVoice, markerFor, mention, titleSuffix } from './context.ts';

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
}

function questionList(input: ClarificationNoteInput, context: NoteContext): string[] {
  const v = contextVoice(context);
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
  const v = contextVoice(context);
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
function roleName(level: string, v: Voice): string {
  const role = level.toLowerCase();
  return ROLES.has(role)
    ? v.m(`role.${role}` as MessageKey)
    : level.charAt(0).toUpperCase() + level.slice(1);
}

export function renderClarificationNote(
  input: ClarificationNoteInput,
  context: NoteContext,
): string {
  const v = contextVoice(context);
  const count = Math.max(1, input.questions.length);
  const heading = v.m('clarify.heading', { count, mention: mention(context) });
  const lines = [
    markerFor('clarification', context, input.waitMinutes <= 0 ? 'awaiting_answer' : 'waiting'),
    `### ${EMOJI.question} ${heading}${titleSuffix(context)}`,
    '',
    ...questionList(input, context),
  ];
  const why = oneLine(safeProse(input.context), 1000);
  if (why) lines.push('', v.m('clarify.why', { context: why }));
  const paired = input.assumptions.length === input.questions.length;
  if (!paired && input.assumptions.length > 0)
    lines.push('', v.m('clarify.assume'), '', bulletList(input.assumptions));
  lines.push('', v.sentences(v.m('rule.reply'), deadline(input, context)));
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
  const v = contextVoice(context);
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
