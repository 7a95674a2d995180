/**
 * Answers the review threads a run was asked to address, once it ended:
 * each thread the pushed commit addresses gets a reply linking the commit
 * and is resolved; every other thread gets a reply saying why, and stays
 * open. With one thread, a run that completed and pushed addressed it; with
 * several, the model tells which of them the commit addresses (one JSON call,
 * the threads and the run's record fenced as data).
 */
import * as z from 'zod';
import { describeError } from '../../../errors/catalog.ts';
import type { GitLabPort, ProjectRef } from '../../../core/gitlab-port.ts';
import type { ReviewThreadRequest } from '../../../core/gathered.ts';
import type { LlmPort } from '../../../core/llm-port.ts';
import type { RunOutcome } from '../../../core/outcome.ts';
import { fenceData, renderPrompt, splitPrompt, type PromptLibrary } from '../../../core/prompts.ts';
import type { Logger } from '../../../log/logger.ts';
import type { Redactor } from '../../../log/redact.ts';
import type { Language } from '../../../messages/language.ts';
import { renderThreads } from '../../gather/render.ts';
import {
  renderThreadAnswer,
  type ThreadAnswer,
  type ThreadAnswerWhy,
} from '../../../report/notes/thread-answer-note.ts';

export interface ThreadAnswerDeps {
  gitlab: Pick<GitLabPort, 'replyToDiscussion' | 'resolveDiscussion'>;
  project: ProjectRef;
  iid: number;
  llm: LlmPort;
  prompts: PromptLibrary;
  redactor: Redactor;
  logger: Logger;
  language?: Language | undefined;
  progressNoteUrl?: string | undefined;
  signal?: AbortSignal | undefined;
}

export interface AnsweredThread {
  discussionId: string;
  label: string;
  addressed: boolean;
  /** Set when GitLab refused the reply or the resolve: the thread's answer is not (all) there. */
  failed?: string;
}

type RunEnd = Pick<RunOutcome, 'state' | 'summary' | 'delivery' | 'actions' | 'changedFiles'>;

const Verdicts = z.object({
  threads: z
    .array(
      z.object({
        thread: z.string(),
        addressed: z.boolean(),
        note: z.string().max(2000).optional(),
      }),
    )
    .max(200),
});
type Verdicts = z.infer<typeof Verdicts>;

/** Why nothing the run did can address a thread, when that is so. */
function notPushed(outcome: RunEnd): ThreadAnswerWhy | undefined {
  const delivery = outcome.delivery;
  if (delivery?.status === 'pushed' && delivery.commit) return undefined;
  if (!delivery) return { kind: 'unfinished', reason: firstLine(outcome.summary) };
  if (delivery.status === 'no-changes' || delivery.status === 'disabled')
    return { kind: 'no-change' };
  return {
    kind: 'not-pushed',
    reason: delivery.notPushedReason ?? delivery.branch ?? delivery.status,
  };
}

const firstLine = (text: string) => text.trim().split('\n')[0]?.slice(0, 300) ?? '';

/** The run's record as the answer call reads it: its summary, actions and changed files. */
function runRecord(outcome: RunEnd): string {
  const actions = outcome.actions.map(
    (a) => `- ${a.action.purpose} (${a.status}): ${a.summary.slice(0, 300)}`,
  );
  return [
    fenceData('the run’s summary', outcome.summary.slice(0, 2000)),
    fenceData('the actions it carried out', actions.join('\n') || '(none)'),
    fenceData('the files the commit changed', outcome.changedFiles.join('\n') || '(none)'),
  ].join('\n\n');
}

async function askWhichAddressed(
  deps: ThreadAnswerDeps,
  threads: readonly ReviewThreadRequest[],
  outcome: RunEnd,
): Promise<Verdicts | undefined> {
  try {
    const text = renderPrompt(await deps.prompts.load('review-threads'), {
      threads: renderThreads(threads),
      run: runRecord(outcome),
    });
    const { system, user } = splitPrompt(text);
    const reply = await deps.llm.json({
      purpose: 'review.threads',
      role: 'review',
      schema: Verdicts,
      schemaName: 'review_threads',
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: deps.redactor.redact(user) },
      ],
      ...(deps.signal ? { signal: deps.signal } : {}),
    });
    return reply.value;
  } catch (error) {
    deps.logger.warn('which threads the commit addresses could not be told; they stay open', {
      error: describeError(error).message,
    });
    return undefined;
  }
}

/** What each thread is answered with. */
async function decide(
  deps: ThreadAnswerDeps,
  threads: readonly ReviewThreadRequest[],
  outcome: RunEnd,
): Promise<ThreadAnswer[]> {
  const why = notPushed(outcome);
  if (why) return threads.map(() => ({ addressed: false, why }));
  const commit = outcome.delivery!.commit!;
  const commitUrl = outcome.delivery!.commitUrl;
  if (threads.length === 1) {
    return [
      outcome.state === 'COMPLETE'
        ? { addressed: true, commit, commitUrl }
        : { addressed: false, why: { kind: 'unfinished', reason: firstLine(outcome.summary) } },
    ];
  }
  const verdicts = await askWhichAddressed(deps, threads, outcome);
  return threads.map((thread): ThreadAnswer => {
    if (!verdicts) return { addressed: false, why: { kind: 'unknown' } };
    const verdict = verdicts.threads.find((v) => v.thread.trim() === thread.label);
    if (!verdict) return { addressed: false, why: { kind: 'not-in-change' } };
    return verdict.addressed
      ? { addressed: true, commit, commitUrl, note: verdict.note }
      : { addressed: false, why: { kind: 'not-in-change' }, note: verdict.note };
  });
}

/**
 * Replies in every thread and resolves the addressed ones. A reply or
 * resolve GitLab refuses does not stop the others; it is returned (and
 * logged) so the job can say so.
 */
export async function answerThreads(
  deps: ThreadAnswerDeps,
  threads: readonly ReviewThreadRequest[],
  outcome: RunEnd,
): Promise<AnsweredThread[]> {
  if (threads.length === 0) return [];
  const answers = await decide(deps, threads, outcome);
  const on = { type: 'merge_request' as const, iid: deps.iid };
  const answered: AnsweredThread[] = [];
  for (const [index, thread] of threads.entries()) {
    const answer = answers[index]!;
    const result: AnsweredThread = {
      discussionId: thread.discussionId,
      label: thread.label,
      addressed: answer.addressed,
    };
    try {
      const body = renderThreadAnswer(answer, {
        redactor: deps.redactor,
        language: deps.language,
        progressNoteUrl: deps.progressNoteUrl,
      });
      await deps.gitlab.replyToDiscussion(deps.project, on, thread.discussionId, body);
      if (answer.addressed) {
        if (!deps.gitlab.resolveDiscussion)
          throw new Error('internal: this GitLab port cannot resolve threads');
        await deps.gitlab.resolveDiscussion(deps.project, deps.iid, thread.discussionId, true);
      }
    } catch (error) {
      result.failed = describeError(error).message;
      deps.logger.warn('a review thread could not be answered', {
        discussionId: thread.discussionId,
        error: result.failed,
      });
    }
    answered.push(result);
  }
  return answered;
}
