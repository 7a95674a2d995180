/**
 * A review-only run (`/agent review [focus]`): reads the merge request's
 * latest diff version and change, asks the reviewer for a verdict and
 * findings — in one call, or for a large change in one call per group of
 * files while the budget lasts — and posts them as threads on the diff
 * lines, with one verdict and one summary (./post.ts). Nothing
 * is executed or delivered; the run's summary is the review's summary.
 */
import { UsageError } from '../../../errors/errors.ts';
import type { RunContext } from '../../../core/run-context.ts';
import type { RunEnd } from '../../../core/run-end.ts';
import { inPhase } from '../../../core/phase-scope.ts';
import { readInRepo } from '../../../tools/repo-read.ts';
import { logVerdictPath } from '../index.ts';
import { parseInlineReview, type InlineReview } from './findings.ts';
import { postReview } from './post.ts';
import { inlineReviewMessages, planReview, type ReviewPlan } from './prompt.ts';
import {
  attributeFolders,
  attributeRules,
  ATTRIBUTES_CHARS,
  type AttributeRules,
} from './gitattributes.ts';
import type { ChangedFile } from '../../../core/gitlab-port.ts';
import type { MergeRequestReview } from '../../../core/merge-request-review.ts';
import { isBudgetExhausted, MIN_COMPLETION_TOKENS, type RunBudget } from '../../../core/budget.ts';
import type { ParsedReviewVerdict } from '../../../llm/review-verdict.ts';

/** Largest file read back to tell whether a thread's lines changed. */
const FILE_BYTES = 2_000_000;
/** The most folders whose `.gitattributes` is read (the root and the changed files' folders). */
const ATTRIBUTE_FOLDERS = 50;

/**
 * The target branch's `.gitattributes` files that could mark a changed file
 * generated. The target's, not the change's own: a merge request cannot hide
 * a file from its review by marking it generated.
 */
async function readAttributes(
  ctx: RunContext,
  target: MergeRequestReview,
  ref: string,
  changes: readonly ChangedFile[],
): Promise<AttributeRules> {
  const folders = attributeFolders(changes.map((f) => f.newPath)).slice(0, ATTRIBUTE_FOLDERS);
  const texts = await Promise.all(
    folders.map(async (folder) => {
      const path = folder ? `${folder}/.gitattributes` : '.gitattributes';
      try {
        return await target.gitlab.readFile(target.project, path, ref);
      } catch (error) {
        // unread, it marks nothing: the files it might have marked are reviewed
        ctx.logger.warn('review: a .gitattributes file could not be read', {
          path,
          error: error instanceof Error ? error.message : String(error),
        });
        return undefined;
      }
    }),
  );
  const files = new Map<string, string>();
  folders.forEach((folder, i) => {
    const text = texts[i];
    if (text !== undefined) files.set(folder, text.slice(0, ATTRIBUTES_CHARS));
  });
  return attributeRules(files);
}

/** Whether a call of `chars` characters still fits `budget.max_tokens` (the USD limits are the model adapter's to check). */
function fitsTokenBudget(budget: RunBudget | undefined, chars: number): boolean {
  const limit = budget?.limits.maxTokens;
  if (!budget || limit === undefined) return true;
  const prompt = budget.estimatePromptTokens(Math.ceil(chars * 1.02));
  return budget.spend().spentTokens + prompt + MIN_COMPLETION_TOKENS <= limit;
}

const VERDICT_ORDER = ['PASS', 'PASS_WITH_SUGGESTIONS', 'FAIL'] as const;

/**
 * The review's calls, one per group of the plan, while the budget lasts:
 * the findings of every call, and one verdict, the worst of theirs. The
 * files of the calls the budget left out join the plan's skipped files.
 */
async function reviewGroups(
  ctx: RunContext,
  target: MergeRequestReview,
  focus: string,
  plan: ReviewPlan,
): Promise<InlineReview> {
  const findings: InlineReview['findings'] = [];
  let unusable = 0;
  let verdict: ParsedReviewVerdict | undefined;
  let done = 0;
  for (let group = 0; group < plan.groups.length; group++) {
    const messages = (
      await inlineReviewMessages(ctx.deps.prompts, {
        title: target.title,
        description: target.description,
        focus,
        plan,
        group,
      })
    ).map((m) =>
      // a diff may hold a secret the job knows (a token committed by mistake): never sent to the model
      m.role === 'user' ? { ...m, content: ctx.deps.redactor.redact(m.content) } : m,
    );
    // the first call is made in any case: refused, it ends the run as any run the budget stops
    if (done > 0 && !fitsTokenBudget(ctx.deps.budget, JSON.stringify(messages).length)) break;
    let reply;
    try {
      reply = await ctx.llm.chat({
        purpose: 'review.merge_request',
        role: 'review',
        messages,
        ...(ctx.signal ? { signal: ctx.signal } : {}),
      });
    } catch (error) {
      if (isBudgetExhausted(error) && done > 0) break;
      throw error;
    }
    done++;
    const part = parseInlineReview(reply.content ?? '');
    logVerdictPath(ctx.logger, part.verdict, { phase: 'merge_request', attempt: group });
    findings.push(...part.findings);
    unusable += part.unusable;
    if (
      !verdict ||
      VERDICT_ORDER.indexOf(part.verdict.result) > VERDICT_ORDER.indexOf(verdict.result)
    )
      verdict = part.verdict;
  }
  if (done < plan.groups.length) {
    for (const path of new Set(plan.groups.slice(done).flatMap((g) => g.paths)))
      plan.skipped.push({ path, reason: 'budget' });
    ctx.logger.warn('review: the budget ran out before every file was reviewed', {
      calls: done,
      left: plan.groups.length - done,
    });
  }
  if (unusable > 0) ctx.logger.warn('review findings left out: not usable', { count: unusable });
  // a change with nothing to review passes: there is nothing wrong in what was shown
  return { verdict: verdict ?? { result: 'PASS', source: 'json' }, findings, unusable };
}

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
    const attributes = await readAttributes(ctx, target, version.startSha, changes);
    const plan = planReview(changes, {
      attributes,
      charsPerCall: ctx.config.review.diff_chars_per_call,
    });
    ctx.logger.info('reviewing the merge request', {
      iid,
      head: version.headSha,
      files: plan.reviewed.length,
      calls: plan.groups.length,
      skipped: plan.skipped.length,
    });
    const review = await reviewGroups(ctx, target, focus, plan);
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
      plan.skipped,
    );
    return posted.summary;
  });
  ctx.fsm.to('VALIDATING', 'review: posted');
  return { state: 'COMPLETE', reason: 'completed', summary };
}
