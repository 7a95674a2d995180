import { describeError } from '../../errors/catalog.ts';
import type { RunContext } from '../../core/run-context.ts';
import type { RunEnd } from '../../core/run-end.ts';

/**
 * `/agent pause`: the run asks before each
 * action whether someone asked it to pause, and ends as `paused` when so —
 * after the action that was running, never in the middle of one. Its plan,
 * revisions and reflections are in the history it leaves, so `/agent resume`
 * takes the plan over. A failed look-up never stops the run.
 */
export async function pauseEnd(ctx: RunContext): Promise<RunEnd | undefined> {
  const asked = ctx.deps.pauseRequested;
  if (!asked) return undefined;
  let paused: boolean;
  try {
    paused = await asked();
  } catch (error) {
    ctx.logger.warn('could not tell whether a pause was asked; going on', {
      error: describeError(error).message,
    });
    return undefined;
  }
  if (!paused) return undefined;
  const done = ctx.state.actions.length;
  const left = ctx.state.queue.length;
  ctx.logger.info('paused on request', { actionsDone: done, actionsLeft: left });
  return {
    state: 'FAILED',
    reason: 'paused',
    summary: `Paused on request after ${done} action${done === 1 ? '' : 's'}; ${left} left.`,
  };
}
