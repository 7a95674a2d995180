import { parseCiContext, type CiContext, type CiStep } from '../../ci/context.ts';
import type { CliIo } from '../io.ts';

export interface CiOptions {
  step: CiStep;
}

/**
 * `mr-agent ci --step all|plan|run`: the one-line script of the component's
 * jobs. Reads the job environment (pure, cheap), answers a comment that is
 * not a command at once, and only then loads the run path.
 */
export async function ciCommand(io: CliIo, options: CiOptions): Promise<number> {
  const context: CiContext = parseCiContext(io.env, options.step);
  const { runCiStep } = await import('../../ci/steps.ts');
  return runCiStep(context, { env: io.env, stdout: io.stdout, stderr: io.stderr });
}
