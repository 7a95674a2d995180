import { ConfigError } from '../errors/errors.ts';
import { GITLAB_CREDENTIALS, hostVariableAllowed } from '../shell/sandbox-env.ts';
import type { CliWorkerSpec } from './spec.ts';

/**
 * The environment of a worker CLI: the base
 * host allow-list of src/shell/sandbox-env.ts (PATH, HOME, locale…; no
 * toolchain settings, nothing secret-looking) plus exactly the
 * variables of `runner.worker.env` (its `env:` references already resolved)
 * plus what the adapter itself needs (`adapterEnv`). Nothing else of the host
 * is inherited, so no token or key reaches the worker unless the task names it.
 */
export function workerEnv(
  host: Readonly<Record<string, string | undefined>>,
  taskEnv: Readonly<Record<string, string>>,
  adapterEnv: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const refused = Object.keys(taskEnv).filter((name) => GITLAB_CREDENTIALS.has(name));
  if (refused.length > 0) {
    throw new ConfigError('runner.worker.env passes a GitLab credential to the worker', {
      where: 'runner.worker.env',
      problems: refused.map((name) => `runner.worker.env.${name}: never passed to a worker`),
      hint: 'remove it; the worker only edits the checkout, mr-agent itself talks to GitLab.',
    });
  }
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(host)) {
    if (value !== undefined && hostVariableAllowed(name, value, 'worker')) env[name] = value;
  }
  return { ...env, ...adapterEnv, ...taskEnv };
}

/**
 * The worker's own credential variables (those its adapter names, e.g.
 * `CODEX_API_KEY`), taken from the host when set there — how a CI job passes
 * the worker its key. Never a GitLab credential, a `withheld` variable (the
 * LLM key's) or any variable holding one of `secrets` (the GitLab token, the
 * LLM key), whatever its name.
 */
export function workerCredentials(
  spec: Pick<CliWorkerSpec, 'credentialEnv'>,
  host: Readonly<Record<string, string | undefined>>,
  refuse: { withheld: readonly string[]; secrets: readonly string[] },
): Record<string, string> {
  const secrets = new Set(refuse.secrets.filter((s) => s !== ''));
  const env: Record<string, string> = {};
  for (const name of new Set(spec.credentialEnv.flat())) {
    const value = host[name];
    if (!value || GITLAB_CREDENTIALS.has(name) || refuse.withheld.includes(name)) continue;
    if (secrets.has(value)) continue;
    env[name] = value;
  }
  return env;
}
