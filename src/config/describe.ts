import { escapeInvisible } from '../errors/visible.ts';
import { OPTIONS, type Config, type OptionDef } from './options.ts';
import { expectationFor } from './option-kinds.ts';
import { valueAt, type ResolvedConfig } from './resolve.ts';

export interface ConfigEntry {
  key: string;
  value: unknown;
  source: string;
  location: string;
}

/** The resolved configuration as rows, secrets shown as "(set)" or "(unset)". */
export function configEntries(resolved: ResolvedConfig): ConfigEntry[] {
  return (OPTIONS as readonly OptionDef[]).map((option) => {
    const raw = valueAt(resolved.config as Config, option.key);
    const value = option.secret ? (raw ? '(set)' : '(unset)') : raw;
    const origin = resolved.origins[option.key] ?? { kind: 'default', location: 'default' };
    return { key: option.key, value, source: origin.kind, location: origin.location };
  });
}

export function formatConfigText(entries: readonly ConfigEntry[]): string {
  const width = Math.max(...entries.map((e) => e.key.length));
  return entries
    .map(
      (e) =>
        `${e.key.padEnd(width)}  ${escapeInvisible(JSON.stringify(e.value) ?? 'undefined')}  (${e.source === e.location ? e.source : `${e.source}: ${e.location}`})`,
    )
    .join('\n');
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/** The README's configuration table, generated from the options table. */
export function renderOptionsMarkdown(): string {
  const rows = (OPTIONS as readonly OptionDef[]).map((o) => {
    const def = o.secret ? '—' : `\`${JSON.stringify(o.default)}\``;
    const env = o.env.length > 0 ? o.env.map((e) => `\`${e}\``).join(', ') : '';
    return `| \`${o.key}\` | ${cell(expectationFor(o.kind))} | ${def} | ${env} | ${cell(o.description)} |`;
  });
  return [
    '| Option | Type | Default | Environment | Description |',
    '|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

/** The keys of the user-config API's answer that were not applied, each once, sorted. */
export function refusedUserSettings(resolved: ResolvedConfig): string[] {
  return [...new Set(resolved.refused ?? [])].sort();
}

/** One line naming the user-config API keys not applied; undefined when there are none. */
export function refusedUserSettingsLine(resolved: ResolvedConfig): string | undefined {
  const keys = refusedUserSettings(resolved);
  if (keys.length === 0) return undefined;
  return `user-config API keys not applied (it sets the requesting user's own choices only): ${keys.join(', ')}`;
}
