import type { RunContext } from './run-context.ts';
import type { PhaseName } from './progress/model.ts';

/** A phase that ended the run as `phase_failed` has reported its own failure (review gate). */
function reportedItsFailure(result: unknown): boolean {
  const r = result as { kind?: unknown; end?: { reason?: unknown } } | undefined;
  return r?.kind === 'end' && r.end?.reason === 'phase_failed';
}

/**
 * Runs one progress phase: reported as running, then done or
 * failed, inside a collapsible CI log section.
 */
export async function inPhase<T>(
  ctx: RunContext,
  phase: PhaseName,
  body: () => Promise<T>,
): Promise<T> {
  const { reporter, sections } = ctx.deps;
  reporter.phase(phase, 'running');
  sections?.start(`mr_agent_${phase}`, `mr-agent: ${phase.replace('_', ' ')}`);
  ctx.logger.info('phase started', { phase });
  try {
    const result = await body();
    if (!reportedItsFailure(result)) reporter.phase(phase, 'done');
    return result;
  } catch (error) {
    reporter.phase(phase, 'failed');
    throw error;
  } finally {
    sections?.end(`mr_agent_${phase}`);
  }
}
