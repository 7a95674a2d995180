import { ConfigError } from '../errors/errors.ts';
import { GITLAB_CREDENTIALS, hostVariableAllowed } from '../shell/sandbox-env.ts';

/**
 * The environment of a worker CLI (M1, seed 002 worker §3.3): the base
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
