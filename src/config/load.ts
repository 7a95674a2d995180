import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '../errors/errors.ts';
import type { Config } from './options.ts';
import { apiSource, envSource, flagSource } from './sources.ts';
import { isResolved, resolveConfig, type ConfigSource, type ResolvedConfig } from './resolve.ts';

export const CONFIG_FILE = '.mr-agent.yml';

export interface LoadConfigInput {
  env: Readonly<Record<string, string | undefined>>;
  /** Folder holding `.mr-agent.yml` (ignored when `fileText` is given). */
  repoDir?: string;
  /** The file's text when it was read elsewhere (e.g. from the default branch through the API, M4). */
  file?: { text: string; location: string } | null;
  /** `--set key=value` flags. */
  sets?: readonly string[];
  /**
   * Named flags already mapped to keys; `{value, from}` names where the value
   * came from (`--port`), so a bad value is reported there instead of at `--set`.
   */
  flags?: Readonly<Record<string, string | { value: string; from: string }>>;
  fetch?: typeof fetch;
}

async function readConfigFile(repoDir: string): Promise<{ text: string; location: string } | null> {
  const file = path.join(repoDir, CONFIG_FILE);
  try {
    return { text: await readFile(file, 'utf8'), location: CONFIG_FILE };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new ConfigError(`cannot read ${CONFIG_FILE}: ${(error as Error).message}`, {
      where: file,
    });
  }
}

/**
 * Who the run acts for (the user-config API holds settings per
 * user). That API answers `GET /config/{platform}/{username}`.
 */
export interface ConfigRequester {
  username?: string | undefined;
  userId?: number | undefined;
}

const PLATFORM = 'gitlab';

/**
 * The user-config API's URL for `requester`: `{platform}`, `{username}` and
 * `{user_id}` in the URL are filled in; a URL without them gets the same as
 * query parameters. Undefined when the URL needs a value nobody knows (there
 * is then no user whose settings could be asked for).
 */
export function userConfigUrl(url: string, requester: ConfigRequester = {}): string | undefined {
  const values: Record<string, string | undefined> = {
    platform: PLATFORM,
    username: requester.username || undefined,
    user_id: requester.userId !== undefined ? String(requester.userId) : undefined,
  };
  let missing = false;
  const filled = url.replace(/\{(platform|username|user_id)\}/g, (_all, name: string) => {
    const value = values[name];
    if (value === undefined) missing = true;
    return encodeURIComponent(value ?? '');
  });
  if (missing) return undefined;
  if (filled !== url) return filled;
  const asked = new URL(url);
  for (const [name, value] of Object.entries(values)) {
    if (value !== undefined && !asked.searchParams.has(name)) asked.searchParams.set(name, value);
  }
  return asked.toString();
}

async function fetchUserConfig(
  template: string,
  fetchFn: typeof fetch,
  requester: ConfigRequester | undefined,
): Promise<ConfigSource> {
  const location = `USER_CONFIG_API_URL (${template})`;
  const url = userConfigUrl(template, requester);
  if (!url) return { kind: 'api', location, values: new Map(), problems: [] };
  try {
    const response = await fetchFn(url, {
      signal: AbortSignal.timeout(10_000),
      headers: { accept: 'application/json' },
    });
    if (!response.ok) {
      return {
        kind: 'api',
        location,
        values: new Map(),
        problems: [`${location}: answered HTTP ${response.status}`],
      };
    }
    return apiSource(await response.json(), location);
  } catch (error) {
    return {
      kind: 'api',
      location,
      values: new Map(),
      problems: [`${location}: ${(error as Error).message}`],
    };
  }
}

function resolvedOrThrow(result: ReturnType<typeof resolveConfig>): ResolvedConfig {
  if (isResolved(result)) return result;
  const count = result.problems.length;
  throw new ConfigError(`invalid configuration (${count} problem${count === 1 ? '' : 's'})`, {
    problems: result.problems,
  });
}

/** `first`, or — when it names a user-config API — the sources resolved again with its answer. */
async function withUserConfig(
  sources: readonly ConfigSource[],
  first: ReturnType<typeof resolveConfig>,
  fetchFn: typeof fetch | undefined,
  requester?: ConfigRequester,
): Promise<ResolvedConfig> {
  const url = isResolved(first) ? first.config.user_config_api.url : '';
  if (!url) return resolvedOrThrow(first);
  const api = await fetchUserConfig(url, fetchFn ?? fetch, requester);
  return resolvedOrThrow(resolveConfig([...sources, api]));
}

/** The environment and flag sources of `input`, each read once. */
function commandSources(input: LoadConfigInput): ConfigSource[] {
  const named = Object.entries(input.flags ?? {});
  const plain = named.filter((e): e is [string, string] => typeof e[1] === 'string');
  const sources = [envSource(input.env), flagSource(input.sets ?? [], Object.fromEntries(plain))];
  for (const [key, flag] of named) {
    if (typeof flag !== 'string')
      sources.push({ ...flagSource([], { [key]: flag.value }), location: flag.from });
  }
  return sources;
}

/**
 * A job's configuration in two stages, its sources read once:
 * - `base`: the environment and flags alone (no file, no network), what a
 *   job needs before it can read anything — the token, the log, the trigger
 *   rules;
 * - `final(file)`: the file below them and the user-config API (asked once)
 *   between them; with neither, it is `base` itself, not resolved again.
 */
export interface ConfigStages {
  readonly base: Config;
  /** `requester`: whose settings the user-config API is asked for. */
  final(
    file: { text: string; location: string } | null,
    requester?: ConfigRequester,
  ): Promise<ResolvedConfig>;
}

export function configStages(input: Omit<LoadConfigInput, 'file' | 'repoDir'>): ConfigStages {
  const command = commandSources(input);
  const base = resolvedOrThrow(resolveConfig(command));
  return {
    base: base.config,
    final: async (file, requester) => {
      if (!file) return withUserConfig(command, base, input.fetch, requester);
      // the YAML library loads only when there is a file to read
      const { fileSource } = await import('./file-source.ts');
      const sources = [fileSource(file.text, file.location), ...command];
      return withUserConfig(sources, resolveConfig(sources), input.fetch, requester);
    },
  };
}

/**
 * Reads every source and resolves them. Throws one ConfigError listing every
 * problem (file, key path, expectation) when anything is wrong.
 */
export async function loadConfig(input: LoadConfigInput): Promise<ResolvedConfig> {
  const file =
    input.file !== undefined
      ? input.file
      : input.repoDir
        ? await readConfigFile(input.repoDir)
        : null;
  const { fileSource } = await import('./file-source.ts');
  const sources = [
    ...(file ? [fileSource(file.text, file.location)] : []),
    ...commandSources(input),
  ];
  return withUserConfig(sources, resolveConfig(sources), input.fetch);
}
