import { ConfigError } from '../errors/errors.ts';

/** Host variables a worker CLI may see besides `runner.worker.env`: locale, paths, terminal. */
const HOST_ALLOWED = new Set([
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'TERM',
  'TMPDIR',
  'TZ',
  'CI',
  'NO_COLOR',
]);
const HOST_ALLOWED_PREFIXES = ['LC_'];

/** Variables that must never reach a worker, even when a Task YAML asks for them. */
const NEVER_PASSED = new Set([
  'CI_JOB_TOKEN',
  'CI_JOB_JWT',
  'CI_JOB_JWT_V2',
  'CI_REGISTRY_PASSWORD',
  'TRIGGER_PAYLOAD',
  'GITLAB_TOKEN',
  'MR_AGENT_GITLAB_TOKEN',
]);

/**
 * The environment of a worker CLI (M1, seed 002 worker §3.3): a minimal
 * allow-list of host variables (PATH, HOME, locale…) plus exactly the
 * variables of `runner.worker.env` (its `env:` references already resolved)
 * plus what the adapter itself needs (`adapterEnv`). Nothing else of the host
 * is inherited, so no token or key reaches the worker unless the task names it.
 */
export function workerEnv(
  host: Readonly<Record<string, string | undefined>>,
  taskEnv: Readonly<Record<string, string>>,
  adapterEnv: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const refused = Object.keys(taskEnv).filter((name) => NEVER_PASSED.has(name));
  if (refused.length > 0) {
    throw new ConfigError('runner.worker.env passes a GitLab credential to the worker', {
      where: 'runner.worker.env',
      problems: refused.map((name) => `runner.worker.env.${name}: never passed to a worker`),
      hint: 'remove it; the worker only edits the checkout, mr-agent itself talks to GitLab.',
    });
  }
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(host)) {
    if (value === undefined) continue;
    if (HOST_ALLOWED.has(name) || HOST_ALLOWED_PREFIXES.some((p) => name.startsWith(p)))
      env[name] = value;
  }
  return { ...env, ...adapterEnv, ...taskEnv };
}
