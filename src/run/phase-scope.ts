import type { RunContext } from './context.ts';
import type { ProgressPhase } from './ports.ts';

/**
 * Runs one progress phase (seed 000 §5.4): reported as running, then done or
 * failed, inside a collapsible CI log section.
 */
export async function inPhase<T>(
  ctx: RunContext,
  phase: ProgressPhase,
  body: () => Promise<T>,
): Promise<T> {
  const { reporter, sections } = ctx.deps;
  reporter.phase(phase, 'running');
  sections?.start(`mr_agent_${phase}`, `mr-agent: ${phase.replace('_', ' ')}`);
  ctx.logger.info('phase started', { phase });
  try {
    const result = await body();
    reporter.phase(phase, 'done');
    return result;
  } catch (error) {
    reporter.phase(phase, 'failed');
    throw error;
  } finally {
    sections?.end(`mr_agent_${phase}`);
  }
}
