import * as z from 'zod';

/**
 * The kinds an option can have. Each kind yields its zod schema, its parser
 * for environment/flag strings, and the "expected …" text of error messages.
 */
export type OptionKind =
  | { type: 'boolean' }
  | { type: 'integer'; min?: number; max?: number; positive?: boolean }
  | { type: 'number'; min?: number; max?: number; positive?: boolean }
  | { type: 'string'; nonEmpty?: boolean; url?: boolean }
  | { type: 'enum'; values: readonly string[] }
  | { type: 'list' }
  | { type: 'json'; schema: z.ZodType; expected: string };

export function schemaFor(kind: OptionKind): z.ZodType {
  switch (kind.type) {
    case 'boolean':
      return z.boolean();
    case 'integer': {
      let s = z.number().int();
      if (kind.positive) s = s.positive();
      if (kind.min !== undefined) s = s.min(kind.min);
      if (kind.max !== undefined) s = s.max(kind.max);
      return s;
    }
    case 'number': {
      let s = z.number();
      if (kind.positive) s = s.positive();
      if (kind.min !== undefined) s = s.min(kind.min);
      if (kind.max !== undefined) s = s.max(kind.max);
      return s;
    }
    case 'string':
      if (kind.url) return z.string().refine((v) => v === '' || isHttpUrl(v));
      return kind.nonEmpty ? z.string().min(1) : z.string();
    case 'enum':
      return z.enum(kind.values as [string, ...string[]]);
    case 'list':
      return z.array(z.string());
    case 'json':
      return kind.schema;
  }
}

function isHttpUrl(value: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

export function expectationFor(kind: OptionKind): string {
  const range = (k: { min?: number; max?: number; positive?: boolean }) =>
    k.positive
      ? ' > 0'
      : k.min !== undefined && k.max !== undefined
        ? ` between ${k.min} and ${k.max}`
        : k.min !== undefined
          ? ` >= ${k.min}`
          : k.max !== undefined
            ? ` <= ${k.max}`
            : '';
  switch (kind.type) {
    case 'boolean':
      return 'true or false';
    case 'integer':
      return `a whole number${range(kind)}`;
    case 'number':
      return `a number${range(kind)}`;
    case 'string':
      if (kind.url) return 'an http(s) URL (or empty)';
      return kind.nonEmpty ? 'a non-empty string' : 'a string';
    case 'enum':
      return `one of ${kind.values.join(', ')}`;
    case 'list':
      return 'a list of strings';
    case 'json':
      return kind.expected;
  }
}

const TRUE = new Set(['true', '1', 'yes', 'on']);
const FALSE = new Set(['false', '0', 'no', 'off']);

/**
 * Turns the text of an environment variable or flag into a value of the
 * option's kind. Unparseable text is returned unchanged so that validation
 * reports it with the text the user wrote.
 */
export function parseText(kind: OptionKind, text: string): unknown {
  const trimmed = text.trim();
  switch (kind.type) {
    case 'boolean': {
      const lower = trimmed.toLowerCase();
      if (TRUE.has(lower)) return true;
      if (FALSE.has(lower)) return false;
      return text;
    }
    case 'integer':
    case 'number':
      return trimmed !== '' && Number.isFinite(Number(trimmed)) ? Number(trimmed) : text;
    case 'list':
      if (trimmed.startsWith('[')) return parseJsonOr(trimmed);
      return trimmed === ''
        ? []
        : trimmed
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean);
    case 'json':
      return parseJsonOr(trimmed);
    default:
      return text;
  }
}

function parseJsonOr(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
