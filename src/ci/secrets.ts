import type { Config } from '../config/options.ts';
import { ConfigError } from '../errors/errors.ts';

/**
 * The component names the variables that hold secrets (`gitlab_token_variable`,
 * `llm_api_key_variable`) instead of taking the secrets as inputs, which the pipeline would show. The
 * LLM adapter reads its key through `llm.api_key_variable` itself; the GitLab
 * token is copied here into the variable the options table reads.
 */
export const GITLAB_TOKEN_VARIABLE = 'MR_AGENT_GITLAB_TOKEN';

export function withNamedSecrets(
  env: Readonly<Record<string, string | undefined>>,
): Readonly<Record<string, string | undefined>> {
  const name = env.MR_AGENT_GITLAB_TOKEN_VAR?.trim();
  if (!name || name === GITLAB_TOKEN_VARIABLE) return env;
  const value = env[name];
  return value ? { ...env, [GITLAB_TOKEN_VARIABLE]: value } : env;
}

/** Names whose values are masked wherever the agent writes (besides the secret-looking ones). */
export function secretVariableNames(env: Readonly<Record<string, string | undefined>>): string[] {
  const names = [
    GITLAB_TOKEN_VARIABLE,
    env.MR_AGENT_GITLAB_TOKEN_VAR,
    env.MR_AGENT_LLM_API_KEY_VAR,
  ];
  return names.filter((n): n is string => Boolean(n?.trim())).map((n) => n.trim());
}

/** The job's GitLab token (after `withNamedSecrets`), or a configuration error naming its variable. */
export function jobGitLabToken(
  config: Config,
  env: Readonly<Record<string, string | undefined>>,
): string {
  const token = config.gitlab.token;
  if (token) return token;
  throw new ConfigError('no GitLab token for the agent', {
    where: env.MR_AGENT_GITLAB_TOKEN_VAR || GITLAB_TOKEN_VARIABLE,
    hint: 'store a token with the `api` and `write_repository` scopes as a masked CI/CD variable and name it in the `gitlab_token_variable` input.',
  });
}
