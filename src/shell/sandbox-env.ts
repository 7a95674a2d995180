import { looksLikeSecretName } from '../log/redact.ts';

/**
 * The one allow-list of host variables that reach processes the agent starts
 * (docs/security.md): the commands of `run_command` and environment setup (`sandboxEnv`),
 * git (`gitHostEnv`, used by src/shell/git.ts) and the worker CLIs
 * (src/workers/env.ts). Everything else is dropped.
 */

/** Locale, paths and terminal: what every process needs. Worker CLIs get only these. */
export const BASE_HOST_NAMES: ReadonlySet<string> = new Set([
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

/** Build tool settings a build or test command may also see. */
const TOOLCHAIN_NAMES: ReadonlySet<string> = new Set([
  'HOSTNAME',
  'JAVA_HOME',
  'MAVEN_OPTS',
  'MAVEN_HOME',
  'MAVEN_USER_HOME',
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
  'UV_CACHE_DIR',
  'CONDA_PKGS_DIRS',
  'CONDA_PREFIX',
  'CONDA_DEFAULT_ENV',
  'CONDA_EXE',
  'MAMBA_ROOT_PREFIX',
  'NODE_OPTIONS',
  'NODE_ENV',
  'NPM_CONFIG_CACHE',
  'npm_config_cache',
  'NPM_CONFIG_STORE_DIR',
  'npm_config_store_dir',
  'YARN_CACHE_FOLDER',
  'PNPM_HOME',
  'COREPACK_HOME',
  'COREPACK_ENABLE_DOWNLOAD_PROMPT',
  'FORCE_COLOR',
  // how a team behind a mirror or a proxy reaches its registries (docs/environment.md)
  'PIP_EXTRA_INDEX_URL',
  'GOPRIVATE',
  'GONOPROXY',
  'GOSUMDB',
  'GOINSECURE',
  'MAVEN_ARGS',
  'MAVEN_CONFIG',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'NODE_EXTRA_CA_CERTS',
  'REQUESTS_CA_BUNDLE',
  'CURL_CA_BUNDLE',
  // a network that reaches only the registry: packages that fetch their own binaries skip it
  'PUPPETEER_SKIP_DOWNLOAD',
  'PUPPETEER_SKIP_CHROMIUM_DOWNLOAD',
  'PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD',
  'CYPRESS_INSTALL_BINARY',
  'ELECTRON_SKIP_BINARY_DOWNLOAD',
  'CHROMEDRIVER_SKIP_DOWNLOAD',
]);
const ALLOWED_PREFIXES = ['LC_'];
/**
 * Package-manager settings by prefix (npm's, pnpm's and corepack's, Yarn's,
 * pip's, uv's), for setup and build commands only. A setting whose name looks
 * secret (`npm_config_//host/:_authToken`, `YARN_NPM_AUTH_TOKEN`,
 * `UV_INDEX_X_PASSWORD`) or whose value holds URL credentials is still dropped.
 */
const PACKAGE_MANAGER_PREFIXES = [
  'npm_config_',
  'NPM_CONFIG_',
  'COREPACK_',
  'YARN_',
  'PIP_',
  'UV_',
];
/**
 * Names that look secret but hold public data: corepack's npm signing keys
 * (`0` turns the check off) and Go's private module path patterns.
 */
const PUBLIC_DESPITE_NAME: ReadonlySet<string> = new Set(['COREPACK_INTEGRITY_KEYS', 'GOPRIVATE']);

/**
 * What git takes from the host besides the base names: CA files and proxies.
 * A proxy URL may carry the proxy's own credentials (job configuration, not
 * a GitLab token), so those are kept for git.
 */
const GIT_NETWORK_NAMES: ReadonlySet<string> = new Set([
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'GIT_SSL_CAINFO',
  'GIT_SSL_CAPATH',
  'GIT_SSL_NO_VERIFY',
  'http_proxy',
  'https_proxy',
  'all_proxy',
  'no_proxy',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'ALL_PROXY',
  'NO_PROXY',
]);
const PROXY_NAME = /^(?:https?|all)_proxy$/i;
/** The base names git does not get: its HOME is private (src/shell/git.ts). */
const NOT_FOR_GIT: ReadonlySet<string> = new Set(['HOME', 'SHELL', 'CI']);

/**
 * GitLab credentials and the raw trigger event: never passed to any process
 * the agent starts, not even when a Task YAML or the agent itself asks.
 */
export const GITLAB_CREDENTIALS: ReadonlySet<string> = new Set([
  'CI_JOB_TOKEN',
  'CI_JOB_JWT',
  'CI_JOB_JWT_V1',
  'CI_JOB_JWT_V2',
  'CI_REGISTRY_PASSWORD',
  'CI_DEPENDENCY_PROXY_PASSWORD',
  'CI_DEPLOY_PASSWORD',
  'CI_REPOSITORY_URL',
  'GITLAB_TOKEN',
  'MR_AGENT_GITLAB_TOKEN',
  'MR_AGENT_TRIGGER_TOKEN',
  'MR_AGENT_WEBHOOK_SECRET',
  'TRIGGER_PAYLOAD',
]);

/** Never passed to the agent's commands: GitLab credentials and the LLM key. */
const COMMAND_DENIED: ReadonlySet<string> = new Set([...GITLAB_CREDENTIALS, 'OPENAI_API_KEY']);

/** `scheme://user:password@host` or `scheme://token@host` — credentials in a URL-valued variable. */
const URL_CREDENTIALS = /[a-z][a-z0-9+.-]*:\/\/[^/\s@]+@/i;

export function hasUrlCredentials(value: string): boolean {
  return URL_CREDENTIALS.test(value);
}

/**
 * Whether a host variable may be inherited: on the allow-list (the base list,
 * plus the toolchain list for commands), not secret-looking by name, and no
 * credentials inside a URL value.
 */
export function hostVariableAllowed(
  name: string,
  value: string,
  scope: 'command' | 'worker' | 'git',
): boolean {
  if (GITLAB_CREDENTIALS.has(name)) return false;
  if (looksLikeSecretName(name) && !(scope === 'command' && PUBLIC_DESPITE_NAME.has(name)))
    return false;
  if (scope === 'git') {
    if (GIT_NETWORK_NAMES.has(name)) return PROXY_NAME.test(name) || !hasUrlCredentials(value);
    if (NOT_FOR_GIT.has(name)) return false;
  }
  const listed =
    BASE_HOST_NAMES.has(name) ||
    (scope === 'command' &&
      (TOOLCHAIN_NAMES.has(name) || PACKAGE_MANAGER_PREFIXES.some((p) => name.startsWith(p)))) ||
    ALLOWED_PREFIXES.some((p) => name.startsWith(p));
  return listed && !hasUrlCredentials(value);
}

/**
 * The environment for commands the agent runs: the allow-listed host
 * variables, no token, key or secret-looking variable, plus `extra` (never a
 * GitLab credential or the LLM key).
 */
export function sandboxEnv(
  host: Readonly<Record<string, string | undefined>>,
  extra: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(host)) {
    if (value === undefined || COMMAND_DENIED.has(name)) continue;
    if (hostVariableAllowed(name, value, 'command')) env[name] = value;
  }
  for (const [name, value] of Object.entries(extra)) {
    if (!COMMAND_DENIED.has(name)) env[name] = value;
  }
  env.CI ??= 'true';
  return env;
}

/**
 * The host variables git keeps (src/shell/git.ts adds its own): the base
 * names without `HOME`, the CA files and the proxies. No token, no `GIT_*`
 * setting of the host (`GIT_DIR`, `GIT_SSH_COMMAND`, `GIT_ASKPASS`,
 * `GIT_CONFIG_*` …), no `XDG_CONFIG_HOME`.
 */
export function gitHostEnv(
  host: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(host)) {
    if (value === undefined || COMMAND_DENIED.has(name)) continue;
    if (hostVariableAllowed(name, value, 'git')) env[name] = value;
  }
  return env;
}
