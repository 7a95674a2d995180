import * as z from 'zod';
import type { JsonTop } from './extract-json.ts';

/**
 * A zod schema as a Chat Completions `response_format`. The
 * JSON schema is marked `strict` only when OpenAI's strict mode can take
 * it (every property required, no additional properties); otherwise the
 * endpoint gets the schema as guidance and our validation does the rest.
 */
export interface JsonSchemaFormat {
  type: 'json_schema';
  json_schema: { name: string; schema: Record<string, unknown>; strict: boolean };
}

export function responseFormatFor(schema: z.ZodType, name: string): JsonSchemaFormat {
  const json = z.toJSONSchema(schema, { target: 'draft-7', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  delete json['$schema'];
  return {
    type: 'json_schema',
    json_schema: { name: safeName(name), schema: json, strict: isStrictCompatible(json) },
  };
}

/** OpenAI wants `^[a-zA-Z0-9_-]{1,64}$`. */
function safeName(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
  return cleaned === '' ? 'reply' : cleaned;
}

function isStrictCompatible(node: unknown): boolean {
  if (Array.isArray(node)) return node.every(isStrictCompatible);
  if (typeof node !== 'object' || node === null) return true;
  const record = node as Record<string, unknown>;
  if (record['type'] === 'object' || record['properties'] !== undefined) {
    const properties = Object.keys((record['properties'] as object | undefined) ?? {});
    const required = new Set((record['required'] as string[] | undefined) ?? []);
    if (record['additionalProperties'] !== false) return false;
    if (!properties.every((key) => required.has(key))) return false;
  }
  return Object.values(record).every(isStrictCompatible);
}

/** Which top-level JSON value the schema wants, so the extractor skips the others. */
export function topOf(schema: z.ZodType): JsonTop {
  const json = z.toJSONSchema(schema, { unrepresentable: 'any' }) as { type?: unknown };
  if (json.type === 'object') return 'object';
  if (json.type === 'array') return 'array';
  return 'any';
}
