import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

/**
 * The bad-input corpus: `test/corpus/<area>/*.yaml`, each file a list of
 * cases. Every case names itself, says which outcome class it expects and
 * carries the area's input. Inputs that are impractical to write out (a
 * megabyte, ten thousand brackets, a truncated JSON text) are written as
 * generators and expanded before the case runs:
 *
 *   { $repeat: "ab", times: 1000 }           "abab…" (2000 characters)
 *   { $nest: 10000, open: "[", close: "]" }  "[[[…]]]" (optional inner text)
 *   { $join: [part, part, …] }               the parts, concatenated
 *   { $json: value }                         JSON.stringify(value)
 *   { $cut: text, at: 40 }                   the first 40 characters (negative: drop the last)
 *
 * Strings use YAML double quotes for escapes: "\0", "\u202e", "\ud800".
 */
export const CORPUS_DIR = path.resolve(import.meta.dirname, '../../corpus');

/** Outcome classes: a clear error saying what and where, or the input safely ignored/accepted. */
export const OUTCOMES = ['error', 'ignore', 'ok'] as const;
export type Outcome = (typeof OUTCOMES)[number];

export const BaseCase = z.looseObject({
  name: z.string().min(1),
  expect: z.enum(OUTCOMES),
  /** Substrings the message must contain (what and where). */
  match: z
    .union([z.string(), z.array(z.string())])
    .transform((v) => (Array.isArray(v) ? v : [v]))
    .default([]),
});
export type BaseCase = z.infer<typeof BaseCase>;

export interface CorpusFile {
  file: string;
  cases: Record<string, unknown>[];
}

/** Every case file of one area, in name order. */
export function loadArea(area: string): CorpusFile[] {
  const dir = path.join(CORPUS_DIR, area);
  return readdirSync(dir)
    .filter((name) => name.endsWith('.yaml'))
    .sort()
    .map((name) => {
      const file = path.join(dir, name);
      const data: unknown = parseYaml(readFileSync(file, 'utf8'));
      if (!Array.isArray(data)) throw new Error(`${file}: expected a list of cases`);
      return { file: `${area}/${name}`, cases: data as Record<string, unknown>[] };
    });
}

export function listAreas(): string[] {
  return readdirSync(CORPUS_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

type Gen = Record<string, unknown>;

function text(value: unknown): string {
  const expanded = expand(value);
  return typeof expanded === 'string' ? expanded : JSON.stringify(expanded);
}

function generate(gen: Gen): unknown {
  if ('$repeat' in gen) return text(gen.$repeat).repeat(Number(gen.times));
  if ('$nest' in gen) {
    const depth = Number(gen.$nest);
    return `${text(gen.open).repeat(depth)}${gen.inner === undefined ? '' : text(gen.inner)}${text(gen.close).repeat(depth)}`;
  }
  if ('$join' in gen) return (gen.$join as unknown[]).map(text).join('');
  if ('$json' in gen) return JSON.stringify(expand(gen.$json));
  if ('$cut' in gen) return text(gen.$cut).slice(0, Number(gen.at));
  throw new Error(`unknown generator ${JSON.stringify(Object.keys(gen))}`);
}

/** Expands every generator inside a case input. */
export function expand(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(expand);
  if (value === null || typeof value !== 'object') return value;
  const record = value as Record<string, unknown>;
  if (Object.keys(record).some((key) => key.startsWith('$'))) return generate(record);
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, expand(v)]));
}

/** Parses a case with the area's schema, naming the file and case on failure. */
export function parseCase<T extends z.ZodType>(schema: T, raw: unknown, file: string): z.infer<T> {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const name = (raw as { name?: string }).name ?? '(unnamed)';
  throw new Error(`${file}: case "${name}": ${z.prettifyError(parsed.error)}`);
}
