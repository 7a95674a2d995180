import { inPhase } from '../../core/phase-scope.ts';
import type { RunContext } from '../../core/run-context.ts';

/**
 * Environment setup between planning and execution. Its
 * hand-off is the one value every later command uses: the
 * execution prompt's environment section, the tools' `run_command` (through
 * the tool context), verification and the test command (through the run
 * state).
 */
export async function environmentPhase(ctx: RunContext): Promise<void> {
  const step = ctx.deps.environment;
  if (!step) {
    ctx.deps.reporter.phase('environment_setup', 'skipped');
    return;
  }
  const outcome = await inPhase(ctx, 'environment_setup', () =>
    step.setup(ctx.state.plan!.selected_environment, ctx.signal),
  );
  ctx.state.environment = outcome.handoff;
  if (outcome.handoff.runner) ctx.toolContext.environment = outcome.handoff.runner;
  else delete ctx.toolContext.environment;
  await ctx.deps.reporter.environment(outcome);
}
