import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '../errors/errors.ts';
import { apiSource, envSource, fileSource, flagSource } from './sources.ts';
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

async function fetchUserConfig(url: string, fetchFn: typeof fetch): Promise<ConfigSource> {
  const location = `USER_CONFIG_API_URL (${url})`;
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

/**
 * Reads every source and resolves them. Throws one ConfigError listing every
 * problem (file, key path, expectation) when anything is wrong.
 */
export async function loadConfig(input: LoadConfigInput): Promise<ResolvedConfig> {
  const sources: ConfigSource[] = [];
  const file =
    input.file !== undefined
      ? input.file
      : input.repoDir
        ? await readConfigFile(input.repoDir)
        : null;
  if (file) sources.push(fileSource(file.text, file.location));
  const named = Object.entries(input.flags ?? {});
  const plain = named.filter((e): e is [string, string] => typeof e[1] === 'string');
  sources.push(envSource(input.env), flagSource(input.sets ?? [], Object.fromEntries(plain)));
  for (const [key, flag] of named) {
    if (typeof flag !== 'string')
      sources.push({ ...flagSource([], { [key]: flag.value }), location: flag.from });
  }

  const first = resolveConfig(sources);
  if (isResolved(first) && first.config.user_config_api.url) {
    sources.push(await fetchUserConfig(first.config.user_config_api.url, input.fetch ?? fetch));
  }
  const result = sources.some((s) => s.kind === 'api') ? resolveConfig(sources) : first;
  if (!isResolved(result)) {
    const count = result.problems.length;
    throw new ConfigError(`invalid configuration (${count} problem${count === 1 ? '' : 's'})`, {
      problems: result.problems,
    });
  }
  return result;
}
