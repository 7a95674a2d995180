import { ConfigError } from '../errors/errors.ts';

/**
 * The component's `runner_tags` and `resource_group` inputs, which the template
 * hands the plan job as MR_AGENT_RUNNER_TAGS (`{"runner_tags": [...]}`, GitLab's
 * rendering of the array input) and MR_AGENT_RESOURCE_GROUP (unexpanded, so
 * GitLab expands it in the child pipeline with that job's variables).
 */
export interface RunnerSettings {
  tags: readonly string[];
  resourceGroup: string | undefined;
}

function tagList(value: unknown): string[] | undefined {
  const list =
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>).runner_tags
      : value;
  if (!Array.isArray(list) || !list.every((t) => typeof t === 'string')) return undefined;
  return list.map((t) => t.trim()).filter((t) => t !== '');
}

export function runnerSettings(
  tags: string | undefined,
  resourceGroup: string | undefined,
): RunnerSettings {
  let parsed: string[] | undefined = [];
  if (tags?.trim()) {
    try {
      parsed = tagList(JSON.parse(tags));
    } catch {
      parsed = undefined;
    }
  }
  if (!parsed) {
    throw new ConfigError('MR_AGENT_RUNNER_TAGS is not a list of runner tags', {
      where: 'MR_AGENT_RUNNER_TAGS',
      hint: "set the component's `runner_tags` input to an array, e.g. `[docker, linux]`.",
    });
  }
  return { tags: parsed, resourceGroup: resourceGroup?.trim() || undefined };
}
