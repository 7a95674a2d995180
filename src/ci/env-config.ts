import type { Config } from '../config/options.ts';
import { isResolved, resolveConfig } from '../config/resolve.ts';
import { envSource } from '../config/sources.ts';
import { ConfigError } from '../errors/errors.ts';

/** The configuration from the environment alone: no file, no network (the fast path of A3). */
export function envConfig(env: Readonly<Record<string, string | undefined>>): Config {
  const result = resolveConfig([envSource(env)]);
  if (isResolved(result)) return result.config;
  const count = result.problems.length;
  throw new ConfigError(`invalid configuration (${count} problem${count === 1 ? '' : 's'})`, {
    problems: result.problems,
  });
}
