import type { RunContext } from '../../core/run-context.ts';
import { stopReason } from '../converse/index.ts';

/**
 * Delivery once every criterion is met: the injected step commits
 * and pushes the change (or posts a patch note). A failure here fails the
 * run; its error says why and the change stays in the job artifacts.
 * With `notPushedReason` the change is kept as a patch note for that reason.
 */
export async function deliveryPhase(ctx: RunContext, notPushedReason?: string): Promise<void> {
  const step = ctx.deps.delivery;
  if (!step) return;
  const { state, deps } = ctx;
  deps.sections?.start('mr_agent_delivery', 'mr-agent: delivery');
  try {
    ctx.logger.info('delivery started', { changedFiles: state.changedFiles.size });
    state.delivery = await step.deliver(
      {
        objective: state.plan?.goal_understanding.main_objective ?? ctx.task.title,
        summary: state.assessment?.summary ?? '',
        changedFiles: [...state.changedFiles],
        ...patchOnly(ctx, notPushedReason),
      },
      ctx.signal,
    );
    ctx.logger.info('delivery finished', {
      status: state.delivery.status,
      branch: state.delivery.branch,
      commit: state.delivery.commit,
    });
  } finally {
    deps.sections?.end('mr_agent_delivery');
  }
}

function patchOnly(ctx: RunContext, notPushedReason: string | undefined): { patchOnly?: string } {
  const reason = stopReason(ctx) ?? notPushedReason;
  return reason !== undefined ? { patchOnly: reason } : {};
}
