import type { ChatMessage } from '../../core/llm-port.ts';
import type { RunContext } from '../../core/run-context.ts';
import type { ReviewSubject } from '../../core/hooks.ts';
import { fenceData, renderPrompt } from '../../core/prompts.ts';
import { renderRequest } from '../gather/render.ts';
import { workingDiff, type WorkingDiff } from './diff.ts';

/** Longest diff shown to the execution reviewer. */
export const DIFF_CHARS = 60_000;
const REQUEST_CHARS = 20_000;

/** The request as the planner saw it (task, MR or issue, and the PRD when there is one). */
function requestSection(ctx: RunContext): string {
  const gathered = ctx.state.gathered;
  const request = gathered
    ? renderRequest(gathered.request, REQUEST_CHARS)
    : fenceData('The task', `${ctx.task.title}\n\n${ctx.task.description}`);
  const prd = gathered?.prd ? `\n\n${fenceData('PRD', gathered.prd.slice(0, REQUEST_CHARS))}` : '';
  return `## Request\n\n${request}${prd}`;
}

/** The reviewer's own earlier feedback on this phase, so it can check it was addressed. */
function earlierFeedback(ctx: RunContext, subject: ReviewSubject): string[] {
  if (subject.attempt === 0) return [];
  const earlier = ctx.state.reviews.filter((r) => r.phase === subject.phase).slice(-1);
  return earlier.map(
    (r) =>
      `## Your feedback on the previous version (review ${r.attempt}: ${r.result})\n\n${fenceData('feedback', r.feedback || '(none)')}`,
  );
}

function criteriaSection(ctx: RunContext): string {
  const criteria = ctx.state.plan?.goal_understanding.success_criteria ?? [];
  const lines = criteria.map((c, i) => `- AC-${i + 1}: ${c}`);
  return `## Success criteria\n\n${lines.length > 0 ? lines.join('\n') : '(the plan lists none: judge against the request)'}`;
}

function diffSection(diff: WorkingDiff): string {
  const title = diff.git
    ? '## Changes (git diff against HEAD'
    : '## Changes (not a git work tree: the changed files as they are now';
  if (diff.files.length === 0) return `${title})\n\n(no changes)`;
  return `${title}; ${diff.files.length} files)\n\n${fenceData(diff.git ? 'diff' : 'changed files', diff.text)}`;
}

async function systemPrompt(ctx: RunContext, subject: ReviewSubject): Promise<string> {
  const template = await ctx.deps.prompts.load(`review-${subject.phase}`);
  return renderPrompt(template, {
    attempt: String(subject.attempt + 1),
    max_reviews: String(ctx.config.review.max_revisions + 1),
  });
}

/** Planning review: the plan against the request. */
async function planningMessage(ctx: RunContext, subject: ReviewSubject): Promise<string> {
  return [
    requestSection(ctx),
    `## Plan to review\n\n${fenceData('plan (JSON)', subject.text)}`,
    ...earlierFeedback(ctx, subject),
  ].join('\n\n');
}

/** Execution review: the diff against the success criteria. */
async function executionMessage(ctx: RunContext, subject: ReviewSubject): Promise<string> {
  const diff = await workingDiff({
    repoDir: ctx.repoDir,
    stateDir: ctx.config.state.directory,
    hostEnv: ctx.deps.hostEnv,
    shell: ctx.deps.shell,
    checkout: ctx.deps.checkout,
    redactor: ctx.deps.redactor,
    logger: ctx.logger,
    maxChars: DIFF_CHARS,
    changedFiles: [...ctx.state.changedFiles],
  });
  ctx.logger.debug('review diff', {
    files: diff.files.length,
    chars: diff.text.length,
    cut: diff.cut,
  });
  return [
    requestSection(ctx),
    criteriaSection(ctx),
    `## Actions carried out\n\n${fenceData('actions', subject.text)}`,
    diffSection(diff),
    ...earlierFeedback(ctx, subject),
  ].join('\n\n');
}

export async function reviewMessages(
  ctx: RunContext,
  subject: ReviewSubject,
): Promise<ChatMessage[]> {
  const user =
    subject.phase === 'planning'
      ? await planningMessage(ctx, subject)
      : await executionMessage(ctx, subject);
  return [
    { role: 'system', content: await systemPrompt(ctx, subject) },
    { role: 'user', content: user },
  ];
}
