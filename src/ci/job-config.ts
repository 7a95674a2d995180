import { configStages, type ConfigStages } from '../config/load.ts';
import { ConfigError } from '../errors/errors.ts';

type StagesInput = Parameters<typeof configStages>[0];

/** The environment variables a configuration error names (`env: MR_AGENT_ISOLATION (security.isolation): …`). */
function namedVariables(problems: readonly string[]): Set<string> {
  const names = problems
    .map((problem) => /^env: ([A-Za-z_][A-Za-z0-9_]*)/.exec(problem)?.[1])
    .filter((name): name is string => name !== undefined);
  return new Set(names);
}

/** `--set key=value` flags that a problem names (`--set key=value: …` or `(key)`). */
function namedSets(sets: readonly string[], problems: readonly string[]): Set<string> {
  return new Set(
    sets.filter((pair) => {
      const key = pair.split('=')[0]!.trim();
      return problems.some((p) => p.startsWith(`--set ${pair}`) || p.includes(`(${key})`));
    }),
  );
}

/**
 * The job's configuration from its environment and flags. A bad value there
 * (`MR_AGENT_ISOLATION: sometimes`) must still reach the requester, as a bad
 * `.mr-agent.yml` does: the job goes on without the values the error names,
 * through the start checks (the token works, the requester has the role),
 * and fails where the final configuration is resolved — with a reply in the
 * command's thread and result.json. When even that is not possible, the
 * error is thrown at once, as before.
 */
export function jobConfigStages(input: StagesInput): ConfigStages {
  try {
    return configStages(input);
  } catch (error) {
    if (!(error instanceof ConfigError) || error.problems.length === 0) throw error;
    const badVariables = namedVariables(error.problems);
    const badSets = namedSets(input.sets ?? [], error.problems);
    const env = Object.fromEntries(
      Object.entries(input.env).filter(([name]) => !badVariables.has(name)),
    );
    const sets = (input.sets ?? []).filter((pair) => !badSets.has(pair));
    let fallback: ConfigStages;
    try {
      fallback = configStages({ ...input, env, sets });
    } catch {
      throw error;
    }
    return { base: fallback.base, final: () => Promise.reject(error) };
  }
}
