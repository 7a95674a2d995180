/**
 * The environments as the planning prompt lists them (prompts/planning.md:
 * `{{environments}}`, `{{environment_criteria}}`, `{{default_environment}}`),
 * each from its folder's `planner`, in the registry's order.
 */
import type { EnvironmentKind } from './kinds/kind.ts';
import { DEFAULT_ENVIRONMENT, ENVIRONMENT_KINDS } from './registry.ts';

export function planningEnvironmentValues(
  kinds: readonly EnvironmentKind[] = ENVIRONMENT_KINDS,
): Record<'environments' | 'environment_criteria' | 'default_environment', string> {
  return {
    environments: kinds.map((k) => `- **${k.name}**: ${k.planner.description}`).join('\n'),
    environment_criteria: kinds.map((k) => `${k.planner.selectedBy} → ${k.name}`).join('; '),
    default_environment: DEFAULT_ENVIRONMENT,
  };
}
