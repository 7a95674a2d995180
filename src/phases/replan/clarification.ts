/**
 * The clarification flow (docs/replanning.md, "Clarification"): post the ❓ note
 * with the questions and the assumptions, then wait for an authorised reply
 * in its thread for up to `auto_assume_timeout_minutes`, polling through the
 * `AnswerSource` on the injected clock. Without an answer the run goes on
 * with the assumptions (`auto_assume_on_no_response`) or stops awaiting an
 * answer; with a timeout of 0 it stops at once. The note's marker says which
 * (`waiting`, `answered`, `assumed`, `awaiting_answer`), so the trigger and a
 * resumed run can tell an open question from a settled one.
 */
import type { Config } from '../../config/options.ts';
import { CancelledError } from '../../errors/errors.ts';
import type { Logger } from '../../log/logger.ts';
import type { Redactor } from '../../log/redact.ts';
import { postNote, prepareNoteBody } from '../../report/note-body.ts';
import type { NoteTarget } from '../../core/note-target.ts';
import {
  renderClarificationNote,
  renderClarificationSettled,
  type ClarificationNoteInput,
  type ClarificationSettled,
} from '../../report/notes/clarification-note.ts';
import { markerFor, type NoteContext } from '../../report/notes/context.ts';
import type { Clock } from '../../core/clock.ts';
import type { Language } from '../../messages/language.ts';
import { fenceData, renderPrompt } from '../../core/prompts.ts';
import { authorisedReplies, type AnswerSource, type ThreadReply } from './answers.ts';
import type { ReplanPrompts } from './prompts.ts';

/** How often the thread is read while waiting. */
export const ANSWER_POLL_MS = 30_000;

export interface NoteSink {
  target: NoteTarget;
  context: NoteContext;
  redactor: Redactor;
  /** Who may answer, e.g. `developer` (shown in the ❓ note). */
  minAccessLabel?: string;
}

export interface ClarificationDeps {
  config: Config;
  /** Absent: nothing can be asked (`ask` must not be called). */
  notes?: NoteSink;
  answers?: AnswerSource;
  clock: Clock;
  logger: Logger;
}

export interface Question {
  questions: string[];
  /** Why the questions are asked. */
  context: string;
  assumptions: string[];
}

export type AskResult =
  | { kind: 'answered'; noteId: string; answers: ThreadReply[] }
  /** Waited the full time (or could not read answers): go on with the assumptions. */
  | { kind: 'no_answer'; noteId: string }
  /** Stop the run awaiting an answer; a reply in the thread resumes it. */
  | { kind: 'paused'; noteId: string };

type Settled = ClarificationSettled;

function settledLine(
  state: Settled,
  minutes: number,
  answers: ThreadReply[],
  context: NoteContext,
): string {
  const answeredBy = answers.map((a) => a.author.username);
  return renderClarificationSettled(state, { waitMinutes: minutes, answeredBy }, context);
}

export class Clarifier {
  constructor(private readonly deps: ClarificationDeps) {}

  /** The language the questions are asked in (the notes'). */
  get language(): Language {
    return this.deps.notes?.context.language ?? 'en';
  }

  private get settings() {
    return this.deps.config.planning.replanning.goal_understanding;
  }

  /** Posts the ❓ note and waits as configured. `pausable: false` never stops the run. */
  async ask(question: Question, options: { pausable: boolean; signal?: AbortSignal }) {
    const { logger } = this.deps;
    const notes = this.deps.notes;
    if (!notes) throw new Error('internal: a question without a note target');
    const minutes = this.settings.auto_assume_timeout_minutes;
    const autoAssume = this.settings.auto_assume_on_no_response || !options.pausable;
    const input: ClarificationNoteInput = {
      ...question,
      waitMinutes: minutes,
      autoAssume,
      askedAt: this.deps.clock.now(),
      ...(notes.minAccessLabel ? { minAccessLabel: notes.minAccessLabel } : {}),
    };
    const body = renderClarificationNote(input, notes.context);
    // a thread (resolvable on GitLab), so the answers sit below the question
    const posted = await postNote(notes.target, body, { redactor: notes.redactor, thread: true });
    logger.info('clarification asked', { noteId: posted.id, questions: question.questions.length });
    if (minutes <= 0 && options.pausable) return { kind: 'paused', noteId: posted.id } as const;
    const answers = await this.wait(posted.id, minutes, options.signal);
    const state: Settled =
      answers.length > 0 ? 'answered' : autoAssume ? 'assumed' : 'awaiting_answer';
    await this.settle(posted.id, input, state, answers);
    if (answers.length > 0) return { kind: 'answered', noteId: posted.id, answers } as const;
    return state === 'assumed'
      ? ({ kind: 'no_answer', noteId: posted.id } as const)
      : ({ kind: 'paused', noteId: posted.id } as const);
  }

  /** Reads the thread once: the authorised answers so far (a resumed run's first look). */
  async answersTo(noteId: string): Promise<ThreadReply[]> {
    if (!this.deps.answers) return [];
    return authorisedReplies(this.deps.answers, noteId);
  }

  /**
   * Marks an open question answered (a resumed run found the answer): a reply
   * in its thread whose marker (`clarification`, state `answered`) tells the
   * trigger that later replies there no longer resume anything.
   */
  async markAnswered(noteId: string, answers: ThreadReply[]): Promise<void> {
    const notes = this.deps.notes;
    if (!notes) return;
    const marker = markerFor('clarification', notes.context, 'answered');
    const line = `${marker}\n${settledLine('answered', 0, answers, notes.context)}`;
    await notes.target
      .createNote(prepareNoteBody(line, { redactor: notes.redactor }), {
        replyTo: noteId,
      })
      .catch((error: unknown) =>
        this.deps.logger.warn('answer acknowledgement not posted', {
          error: (error as Error).message,
        }),
      );
  }

  private async wait(noteId: string, minutes: number, signal?: AbortSignal) {
    const { clock, logger, answers } = this.deps;
    if (!answers) {
      logger.warn('answers cannot be read here; not waiting', { noteId });
      return [];
    }
    const deadline = clock.now() + minutes * 60_000;
    for (;;) {
      if (signal?.aborted) throw new CancelledError('the run was cancelled');
      const found = await authorisedReplies(answers, noteId).catch((error: unknown) => {
        logger.warn('thread not readable; will try again', { error: (error as Error).message });
        return [] as ThreadReply[];
      });
      if (found.length > 0) return found;
      const left = deadline - clock.now();
      if (left <= 0) return [];
      await clock.sleep(Math.min(ANSWER_POLL_MS, left), signal);
    }
  }

  /**
   * Rewrites the ❓ note once the question is settled: its heading says how
   * (answered by whom, went on with the defaults, or stopped), the deadline
   * goes away, and its thread is resolved where GitLab allows it (a merge
   * request's), unless a stopped run still waits for a reply there.
   */
  private async settle(
    noteId: string,
    input: ClarificationNoteInput,
    state: Settled,
    answers: ThreadReply[],
  ): Promise<void> {
    const { logger } = this.deps;
    const notes = this.deps.notes!;
    const answeredBy = answers.map((a) => a.author.username);
    const next = renderClarificationNote(
      { ...input, settled: { state, answeredBy } },
      notes.context,
    );
    try {
      await notes.target.editNote(noteId, prepareNoteBody(next, { redactor: notes.redactor }));
    } catch (error) {
      logger.warn('clarification note not updated', { noteId, error: (error as Error).message });
    }
    if (state !== 'awaiting_answer' && notes.target.resolveThread)
      await notes.target.resolveThread(noteId).catch((error: unknown) =>
        logger.warn('clarification thread not resolved', {
          noteId,
          error: (error as Error).message,
        }),
      );
    logger.info('clarification settled', { noteId, state, answers: answers.length });
  }
}

const YES =
  /^(yes|y|yep|yeah|ok|okay|sure|go|go ahead|proceed|approve|approved|replan|lgtm|do it)\b/i;

/** Whether a reply confirms (a leading "yes", "ok", "go ahead", …). */
export function isAffirmative(text: string): boolean {
  const first = text
    .trim()
    .replace(/^[>\s*_`"'“”]+/, '')
    .trim();
  // `\b` needs a word character before it: Japanese yeses are matched without it
  return YES.test(first) || /^(はい|ええ|お願いします)/.test(first) || /^👍|^:\+1:|^✅/.test(first);
}

const numbered = (questions: readonly string[]) =>
  questions.map((q, i) => `${i + 1}. ${q}`).join('\n');

/** The answers as feedback for the planner (`prompts/replan/answers.md`). */
export async function answersText(
  prompts: ReplanPrompts,
  question: Pick<Question, 'questions'>,
  answers: readonly ThreadReply[],
): Promise<string> {
  return renderPrompt(await prompts.load('answers'), {
    questions: numbered(question.questions),
    answers: fenceData(
      'answers',
      answers.map((a) => `- @${a.author.username}: ${a.body.trim()}`).join('\n'),
    ),
  });
}

/** The assumptions as feedback for the planner (`prompts/replan/assumptions.md`). */
export async function assumptionsText(
  prompts: ReplanPrompts,
  question: Pick<Question, 'questions' | 'assumptions'>,
): Promise<string> {
  return renderPrompt(await prompts.load('assumptions'), {
    questions: numbered(question.questions),
    assumptions:
      question.assumptions.length > 0
        ? question.assumptions.map((a) => `- ${a}`).join('\n')
        : '- (none given: choose the most likely reading of the request)',
  });
}
