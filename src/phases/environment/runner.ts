import type { EnvironmentRunner } from '../../core/environment.ts';
import type { RunnerInput } from './kinds/kind.ts';
import { kindOf } from './registry.ts';

export type { RunnerInput } from './kinds/kind.ts';

/**
 * How later commands run inside the selected environment: the environment's
 * own runner (for miniforge `conda run` in the environment the setup created,
 * for Python the virtualenv the setup left in the checkout). Environments
 * without one (Node, Java, Go) need no wrapper: their package manager and
 * test command are in the hand-off.
 */
export async function environmentRunner(
  input: RunnerInput,
): Promise<EnvironmentRunner | undefined> {
  return kindOf(input.name).runner?.(input);
}
