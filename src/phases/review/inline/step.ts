/**
 * A review-only run (`/agent review [focus]`): reads the merge request's
 * latest diff version and change, asks the reviewer for a verdict and
 * findings, and posts them as threads on the diff lines (./post.ts). Nothing
 * is executed or delivered; the run's summary is the review's summary.
 */
import { UsageError } from '../../../errors/errors.ts';
import type { RunContext } from '../../../core/run-context.ts';
import type { RunEnd } from '../../../core/run-end.ts';
import { inPhase } from '../../../core/phase-scope.ts';
import { readInRepo } from '../../../tools/repo-read.ts';
import { logVerdictPath } from '../index.ts';
import { parseInlineReview } from './findings.ts';
import { postReview } from './post.ts';
import { inlineReviewMessages, reviewedChange } from './prompt.ts';

/** Largest file read back to tell whether a thread's lines changed. */
const FILE_BYTES = 2_000_000;

export async function reviewOnlyStage(ctx: RunContext, focus: string): Promise<RunEnd> {
  const target = ctx.deps.mergeRequestReview;
  if (!target || !target.gitlab.listDiffVersions)
    throw new UsageError('`review` reviews a merge request: comment it on one');
  const { gitlab, project, iid } = target;
  ctx.state.reviewOnly = true;
  ctx.fsm.to('PLANNING', 'review: reading the change');
  const { version, changes } = await inPhase(ctx, 'pre_planning', async () => {
    const [versions, files] = await Promise.all([
      gitlab.listDiffVersions!(project, iid),
      gitlab.listMergeRequestChanges(project, iid),
    ]);
    const newest = versions[0];
    if (!newest) throw new UsageError(`merge request !${iid} has no diff version to review yet`);
    return { version: newest, changes: files };
  });
  ctx.fsm.to('RUNNING', 'review: the change is read');
  const summary = await inPhase(ctx, 'verification', async () => {
    const change = reviewedChange(changes);
    ctx.logger.info('reviewing the merge request', {
      iid,
      head: version.headSha,
      files: change.shown,
      skipped: change.skipped.length,
    });
    // a diff may hold a secret the job knows (a token committed by mistake): never sent to the model
    const redacted = await inlineReviewMessages(ctx.deps.prompts, {
      title: target.title,
      description: target.description,
      focus,
      change,
    });
    const messages = redacted.map((m) =>
      m.role === 'user' ? { ...m, content: ctx.deps.redactor.redact(m.content) } : m,
    );
    const reply = await ctx.llm.chat({
      purpose: 'review.merge_request',
      role: 'review',
      messages,
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    });
    const review = parseInlineReview(reply.content ?? '');
    logVerdictPath(ctx.logger, review.verdict, { phase: 'merge_request', attempt: 0 });
    if (review.unusable > 0)
      ctx.logger.warn('review findings left out: not usable', { count: review.unusable });
    const posted = await postReview(
      {
        gitlab,
        project,
        iid,
        botUserId: target.botUserId,
        webUrl: target.webUrl,
        redactor: ctx.deps.redactor,
        language: target.language,
        readFile: async (path) => (await readInRepo(ctx.toolContext.root, path, FILE_BYTES))?.text,
      },
      review,
      version,
      changes,
    );
    return posted.summary;
  });
  ctx.fsm.to('VALIDATING', 'review: posted');
  return { state: 'COMPLETE', reason: 'completed', summary };
}
