import { OPTIONS, OPTION_BY_KEY, type Config, type OptionDef } from './options.ts';
import { escapeInvisible, quoteVisible } from '../errors/visible.ts';
import { expectationFor, parseText, schemaFor } from './option-kinds.ts';
import { closestKey } from './suggest.ts';

export type SourceKind = 'default' | 'file' | 'api' | 'env' | 'flag';

/** Values from one place, already split into option keys. */
export interface ConfigSource {
  kind: SourceKind;
  /** Shown in messages: `.mr-agent.yml`, `USER_CONFIG_API_URL`, `env`, `--set`. */
  location: string;
  /** Values by dotted key. Strings from env/flags are parsed per the option's kind. */
  values: ReadonlyMap<string, { value: unknown; text?: boolean; name?: string }>;
  /** Problems found while reading the source (unknown keys, bad YAML). */
  problems?: readonly string[];
  /** Keys the source sent but may not set (the user-config API's non-per-user keys); not applied. */
  refused?: readonly string[];
}

export interface ResolvedConfig {
  config: Config;
  /** Where each key's value came from. */
  origins: Record<string, { kind: SourceKind; location: string }>;
  /** Keys a source sent that it may not set, each shown as written (quoted when odd); absent: none. */
  refused?: readonly string[];
}

export interface ConfigProblems {
  problems: string[];
}

function describe(value: unknown): string {
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  if (typeof value === 'string') return quoteVisible(value);
  const text = JSON.stringify(value);
  if (text === undefined) return String(value);
  return escapeInvisible(text.length > 60 ? `${text.slice(0, 57)}...` : text);
}

function setPath(target: Record<string, unknown>, key: string, value: unknown): void {
  const parts = key.split('.');
  let node = target;
  for (const part of parts.slice(0, -1)) {
    node[part] ??= {};
    node = node[part] as Record<string, unknown>;
  }
  node[parts[parts.length - 1]!] = value;
}

/** A key as written by the user, quoted when it holds anything but plain name characters. */
function shownKey(key: string): string {
  return /^[\w.-]{1,200}$/.test(key) ? key : quoteVisible(key, 80);
}

/**
 * Pure resolution: defaults < file < api < env < flag, later sources win.
 * Every problem of every source is collected; none is lost to the first.
 */
export function resolveConfig(sources: readonly ConfigSource[]): ResolvedConfig | ConfigProblems {
  const problems: string[] = [];
  const chosen = new Map<string, { value: unknown; kind: SourceKind; location: string }>();
  for (const option of OPTIONS as readonly OptionDef[]) {
    chosen.set(option.key, { value: option.default, kind: 'default', location: 'default' });
  }
  const order: SourceKind[] = ['default', 'file', 'api', 'env', 'flag'];
  const sorted = [...sources].sort((a, b) => order.indexOf(a.kind) - order.indexOf(b.kind));
  const refused = sorted.flatMap((source) => (source.refused ?? []).map(shownKey));
  for (const source of sorted) {
    problems.push(...(source.problems ?? []));
    for (const [key, entry] of source.values) {
      const option = OPTION_BY_KEY.get(key);
      const label = entry.name ? `${entry.name} (${key})` : shownKey(key);
      if (!option) {
        const suggestion = entry.name ? undefined : closestKey(key, OPTION_BY_KEY.keys());
        problems.push(
          `${source.location}: ${label}: unknown option${suggestion ? ` (did you mean ${suggestion}?)` : ''}`,
        );
        continue;
      }
      if (option.secret && source.kind !== 'env' && source.kind !== 'default') {
        const where = source.kind === 'flag' ? 'on the command line' : 'in a file';
        problems.push(
          `${source.location}: ${label}: is a secret; set it in a masked CI variable (${option.env.join(' or ')}), never ${where}`,
        );
        continue;
      }
      const raw =
        entry.text && typeof entry.value === 'string'
          ? parseText(option.kind, entry.value)
          : entry.value;
      const parsed = schemaFor(option.kind).safeParse(raw);
      if (!parsed.success) {
        const shown = option.secret ? '(hidden)' : describe(entry.value);
        problems.push(
          `${source.location}: ${label}: expected ${expectationFor(option.kind)}, got ${shown}`,
        );
        continue;
      }
      chosen.set(key, { value: parsed.data, kind: source.kind, location: source.location });
    }
  }
  if (problems.length > 0) return { problems };
  const config: Record<string, unknown> = {};
  const origins: ResolvedConfig['origins'] = {};
  for (const [key, entry] of chosen) {
    setPath(config, key, entry.value);
    origins[key] = { kind: entry.kind, location: entry.location };
  }
  return { config: config as Config, origins, ...(refused.length > 0 ? { refused } : {}) };
}

export function isResolved(result: ResolvedConfig | ConfigProblems): result is ResolvedConfig {
  return 'config' in result;
}

/** Every option at its default (options.ts is the only place defaults are written). */
export function defaultConfig(): Config {
  const result = resolveConfig([]);
  if (!isResolved(result))
    throw new Error(`internal: the defaults do not resolve: ${result.problems[0]}`);
  return result.config;
}

/** Looks up a dotted key in a resolved configuration. */
export function valueAt(config: Config, key: string): unknown {
  return key
    .split('.')
    .reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], config);
}
