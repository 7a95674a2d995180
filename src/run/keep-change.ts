import type { RunContext } from '../core/run-context.ts';
import { t } from '../messages/catalog.ts';
import { runLanguage } from '../messages/language.ts';
import { deliveryPhase } from '../phases/deliver/phase.ts';
import { runTests } from '../phases/verify/index.ts';
import { saveCheckpoint } from '../phases/execute/checkpoint.ts';
import type { RunEnd } from '../core/run-end.ts';

/**
 * The change a run made before its budget stopped it is not left behind:
 * the project's checks run once more (no model call), and the change is
 * pushed as a commit when they pass, otherwise posted as a patch note (and
 * kept as `.mr-agent/patch.diff`). A failure here is logged; the artifacts
 * keep the working tree either way.
 */
export async function keepChangeAtBudgetStop(ctx: RunContext): Promise<void> {
  const { state } = ctx;
  if (!ctx.deps.budget?.stop || !ctx.deps.delivery || state.delivery) return;
  if (ctx.signal?.aborted || state.changedFiles.size === 0) return;
  try {
    const test = await runTests(ctx);
    if (test) state.tests.push(test);
    const language = runLanguage(ctx);
    const reason =
      test === undefined
        ? t(language, 'budget.keptUnchecked')
        : test.passed
          ? undefined
          : t(language, 'budget.keptFailing');
    ctx.logger.info('keeping the change at the budget stop', {
      checks: test === undefined ? 'none' : test.passed ? 'passed' : 'failed',
    });
    await deliveryPhase(ctx, reason);
  } catch (error) {
    ctx.logger.warn('change not delivered at the budget stop', {
      error: (error as Error).message,
    });
  }
}

/**
 * The run's checkpoint once it ends: removed when the run completed or was
 * cancelled (nothing to carry on), otherwise saved one last time with how
 * it ended, against the commit it pushed if it pushed one, for
 * `/agent continue` and `/agent retry`.
 */
export async function settleCheckpoint(ctx: RunContext, end: RunEnd): Promise<void> {
  const store = ctx.deps.checkpoints;
  if (!store) return;
  try {
    // the earlier run's checkpoint this run went on from is superseded by this run's
    if (ctx.state.resumedFrom) await store.discardRef(ctx.state.resumedFrom);
    if (end.state === 'COMPLETE' || end.reason === 'cancelled') {
      await store.discard();
      return;
    }
  } catch (error) {
    ctx.logger.warn('checkpoint not removed', { error: (error as Error).message });
    return;
  }
  const delivery = ctx.state.delivery;
  const pushed = delivery?.status === 'pushed' ? delivery.commit : undefined;
  const ended =
    end.reason === 'budget_exhausted' || end.reason === 'paused' ? end.reason : 'failed';
  await saveCheckpoint(ctx, ended, pushed);
}
