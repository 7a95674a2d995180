import { looksLikeSecretName } from '../log/redact.ts';

/** Variables a build or test command may see. Everything else is dropped. */
const ALLOWED_NAMES = new Set([
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
  'HOSTNAME',
  'JAVA_HOME',
  'MAVEN_OPTS',
  'MAVEN_HOME',
  'GRADLE_USER_HOME',
  'GRADLE_OPTS',
  'GOPATH',
  'GOROOT',
  'GOCACHE',
  'GOMODCACHE',
  'GOFLAGS',
  'GOPROXY',
  'GONOSUMDB',
  'GOTOOLCHAIN',
  'VIRTUAL_ENV',
  'PYTHONPATH',
  'PYTHONDONTWRITEBYTECODE',
  'PYTHONUNBUFFERED',
  'PIP_CACHE_DIR',
  'PIP_INDEX_URL',
  'PIP_DISABLE_PIP_VERSION_CHECK',
  'POETRY_CACHE_DIR',
  'CONDA_PKGS_DIRS',
  'CONDA_PREFIX',
  'CONDA_DEFAULT_ENV',
  'CONDA_EXE',
  'MAMBA_ROOT_PREFIX',
  'NODE_OPTIONS',
  'NODE_ENV',
  'NPM_CONFIG_CACHE',
  'npm_config_cache',
  'YARN_CACHE_FOLDER',
  'PNPM_HOME',
  'COREPACK_HOME',
  'COREPACK_ENABLE_DOWNLOAD_PROMPT',
  'NO_COLOR',
  'FORCE_COLOR',
]);
const ALLOWED_PREFIXES = ['LC_'];
/** Never passed on, whatever the configuration says. */
const ALWAYS_DENIED = new Set([
  'CI_JOB_TOKEN',
  'CI_JOB_JWT',
  'CI_JOB_JWT_V2',
  'OPENAI_API_KEY',
  'TRIGGER_PAYLOAD',
]);

/**
 * The environment for commands the agent runs (M1): an allow-list of the
 * host's variables, no token, key or secret-looking variable, plus `extra`.
 */
export function sandboxEnv(
  host: Readonly<Record<string, string | undefined>>,
  extra: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(host)) {
    if (value === undefined || ALWAYS_DENIED.has(name) || looksLikeSecretName(name)) continue;
    if (ALLOWED_NAMES.has(name) || ALLOWED_PREFIXES.some((p) => name.startsWith(p)))
      env[name] = value;
  }
  for (const [name, value] of Object.entries(extra)) {
    if (!ALWAYS_DENIED.has(name)) env[name] = value;
  }
  env.CI ??= 'true';
  return env;
}
