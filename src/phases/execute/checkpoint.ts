import type { CheckpointContent } from '../../core/checkpoint.ts';
import { progressDigest } from '../../core/progress/digest.ts';
import type { RunContext } from '../../core/run-context.ts';
import { cutText } from '../../core/text.ts';

const SUMMARY_CHARS = 4000;

/** The run as a checkpoint keeps it: the plan, the actions done, the keys still to do, a digest. */
export function checkpointContent(
  ctx: RunContext,
  ended?: CheckpointContent['ended'],
): CheckpointContent | undefined {
  const { state } = ctx;
  if (!state.plan) return undefined;
  return {
    plan: state.plan,
    completed: state.actions.map((a) => ({
      key: a.key,
      task_id: a.action.task_id,
      status: a.status,
      summary: ctx.deps.redactor.redact(cutText(a.summary, 1000)),
    })),
    remaining: state.queue.map((step) => step.action.task_id),
    summary: ctx.deps.redactor.redact(
      cutText(
        progressDigest({ actions: state.actions, upcoming: [], changedFiles: state.changedFiles }),
        SUMMARY_CHARS,
      ),
    ),
    ...(ended ? { ended } : {}),
  };
}

/**
 * Saves the run's checkpoint where a later job finds it. A checkpoint that
 * cannot be saved is logged and the run goes on: it only loses the way back.
 */
export async function saveCheckpoint(
  ctx: RunContext,
  ended?: CheckpointContent['ended'],
  pushed?: string,
): Promise<void> {
  const store = ctx.deps.checkpoints;
  const content = store && checkpointContent(ctx, ended);
  if (!store || !content) return;
  try {
    await store.save(content, pushed);
  } catch (error) {
    ctx.logger.warn('checkpoint not saved', { error: (error as Error).message });
  }
}
