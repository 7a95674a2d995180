import type { Config } from '../config/options.ts';
import { ConfigError } from '../errors/errors.ts';
import { allCandidates } from './profiles.ts';

/**
 * The API key of every model candidate, by the variable that holds it.
 * A variable that is not set is a configuration error naming each one.
 */
export function apiKeysOf(
  llm: Config['llm'],
  env: Readonly<Record<string, string | undefined>>,
): Map<string, string> {
  const keys = new Map<string, string>();
  const missing: string[] = [];
  for (const candidate of allCandidates(llm)) {
    const key = env[candidate.apiKeyVariable];
    if (key) keys.set(candidate.apiKeyVariable, key);
    else missing.push(`${candidate.apiKeyVariable} (for ${candidate.name})`);
  }
  if (missing.length > 0) {
    throw new ConfigError(`the LLM API key variable is not set: ${missing.join(', ')}`, {
      where: 'llm.api_key_variable',
      problems: missing.map((m) => `llm.api_key_variable: ${m} is not set`),
      hintKey: 'hint.llm.apiKey',
    });
  }
  return keys;
}
