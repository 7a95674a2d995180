import { readFileSync } from 'node:fs';
import path from 'node:path';
import { hostOf, hostsOfVariables } from '../../host-of.ts';

/**
 * The hosts npm, pnpm, Yarn and corepack fetch packages from: the public
 * registry (npm's and Yarn 1's name for it), and whatever the variables and
 * the settings files name instead — `npm_config_registry` in any case and
 * its scoped `@scope:registry` form, npm's own proxy settings, Yarn Berry's
 * `YARN_NPM_REGISTRY_SERVER`, corepack's `COREPACK_NPM_REGISTRY`, and the
 * `registry` lines of the project's `.npmrc` (and the user's), `.yarnrc` and
 * `.yarnrc.yml`.
 */

const DEFAULTS = ['registry.npmjs.org', 'registry.yarnpkg.com'];

/** Variables naming a registry or npm's proxy (compared in lower case). */
const VARIABLE =
  /^(?:npm_config_(?:@[^:]+:)?registry|npm_config_(?:https_)?proxy|yarn_registry|yarn_npm_registry_server|yarn_https?_proxy|corepack_npm_registry)$/;

/** `registry=…` and `@scope:registry=…` (`.npmrc`), `registry "…"` (`.yarnrc`), `npmRegistryServer: …` (`.yarnrc.yml`). */
const SETTING =
  /^\s*(?:(?:@[^:\s]+:)?registry\s*=|(?:https-)?proxy\s*=|registry\s+|npmRegistryServer:|httpsProxy:|httpProxy:)\s*["']?([^"'\s#]+)/gm;

function settingHosts(file: string): string[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').slice(0, 64 * 1024);
  } catch {
    return [];
  }
  return [...text.matchAll(SETTING)].flatMap((m) => hostOf(m[1]!) ?? []);
}

export function nodeRegistryHosts(
  env: Readonly<Record<string, string | undefined>>,
  dir: string | undefined,
): string[] {
  const fromEnv = hostsOfVariables(env, VARIABLE);
  const files = [
    ...(dir ? ['.npmrc', '.yarnrc', '.yarnrc.yml'].map((f) => path.join(dir, f)) : []),
    ...(env.HOME ? [path.join(env.HOME, '.npmrc')] : []),
  ];
  return [...DEFAULTS, ...fromEnv, ...files.flatMap(settingHosts)];
}
