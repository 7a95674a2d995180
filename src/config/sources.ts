import { OPTIONS, OPTION_BY_KEY, type OptionDef } from './options.ts';
import type { ConfigSource } from './resolve.ts';

type Values = Map<string, { value: unknown; text?: boolean; name?: string }>;

/** Flattens a nested object into dotted keys, stopping at known option keys. */
function flatten(
  node: unknown,
  prefix: string,
  into: Values,
  problems: string[],
  location: string,
): void {
  if (node === null || typeof node !== 'object' || Array.isArray(node)) {
    problems.push(
      `${location}: ${prefix || '(top level)'}: expected a mapping of options, got ${JSON.stringify(node)}`,
    );
    return;
  }
  for (const [name, value] of Object.entries(node)) {
    const key = prefix ? `${prefix}.${name}` : name;
    if (OPTION_BY_KEY.has(key)) {
      into.set(key, { value });
    } else if (
      value !== null &&
      typeof value === 'object' &&
      !Array.isArray(value) &&
      hasOptionsUnder(key)
    ) {
      flatten(value, key, into, problems, location);
    } else {
      into.set(key, { value }); // reported as unknown by resolveConfig
    }
  }
}

function hasOptionsUnder(prefix: string): boolean {
  return (OPTIONS as readonly OptionDef[]).some((o) => o.key.startsWith(`${prefix}.`));
}

/** The data of `.mr-agent.yml` (or any YAML text, read by ./file-source.ts) as a source. */
export function dataSource(data: unknown, location: string): ConfigSource {
  const values: Values = new Map();
  const problems: string[] = [];
  if (data !== null && data !== undefined) flatten(data, '', values, problems, location);
  return { kind: 'file', location, values, problems };
}

/**
 * The user-config API reply, `{status, data: {llm, planning}}`: the
 * requesting user's own choices. Only options marked `perUser` are taken; every
 * other key (an endpoint, a key variable, `security.*`, `trigger.*`, a folder,
 * an unknown name) is listed in `refused` and not applied, so a user who can
 * edit their own entry cannot move the job's secrets or switch its protections off.
 */
export function apiSource(reply: unknown, location: string): ConfigSource {
  const values: Values = new Map();
  const problems: string[] = [];
  const body = reply as { status?: unknown; data?: unknown } | null;
  if (
    !body ||
    typeof body !== 'object' ||
    body.status !== 'success' ||
    typeof body.data !== 'object' ||
    !body.data
  ) {
    problems.push(
      `${location}: expected {"status": "success", "data": {...}}, got ${JSON.stringify(reply)?.slice(0, 80)}`,
    );
    return { kind: 'api', location, values, problems };
  }
  const sent: Values = new Map();
  flatten(body.data, '', sent, problems, location);
  // an allow-list: anything but the user's own choices is refused, never applied
  const refused: string[] = [];
  for (const [key, entry] of sent) {
    if (OPTION_BY_KEY.get(key)?.perUser) values.set(key, entry);
    else refused.push(key);
  }
  return { kind: 'api', location, values, problems, refused };
}

/** Environment variables named in the options table. */
export function envSource(env: Readonly<Record<string, string | undefined>>): ConfigSource {
  const values: Values = new Map();
  for (const option of OPTIONS as readonly OptionDef[]) {
    const name = option.env.find((n) => env[n] !== undefined && env[n] !== '');
    if (name) values.set(option.key, { value: env[name], text: true, name });
  }
  return { kind: 'env', location: 'env', values };
}

/** `--set key=value` flags (and named flags already turned into keys). */
export function flagSource(
  pairs: readonly string[],
  named: Readonly<Record<string, string>> = {},
): ConfigSource {
  const values: Values = new Map();
  const problems: string[] = [];
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) {
      problems.push(`--set ${pair}: expected key=value`);
      continue;
    }
    values.set(pair.slice(0, eq).trim(), { value: pair.slice(eq + 1), text: true });
  }
  for (const [key, value] of Object.entries(named)) values.set(key, { value, text: true });
  return { kind: 'flag', location: '--set', values, problems };
}
