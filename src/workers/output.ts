/** Output helpers shared by the CLI adapters. */
import { cutText } from '../core/text.ts';

/** Keeps the head and the tail of a long text, saying how much was cut. */
export function capOutput(text: string, maxChars: number): string {
  return cutText(text, maxChars, { keep: 'both' });
}

/** Shortens a one-paragraph text to `maxChars`, marking the cut. */
export function clip(text: string, maxChars: number): string {
  return cutText(text.trim(), maxChars);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every line of a JSONL stream that is a JSON object; other lines (banners, warnings) are skipped. */
export function jsonLines(text: string): Record<string, unknown>[] {
  const events: Record<string, unknown>[] = [];
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (!trimmed.startsWith('{')) continue;
    try {
      const value: unknown = JSON.parse(trimmed);
      if (isRecord(value)) events.push(value);
    } catch {
      // not an event line
    }
  }
  return events;
}

/**
 * The single JSON object a CLI printed, tolerating text before and after it
 * (warnings, banners). Tries the whole text, then the outermost braces, then
 * the last line that parses.
 */
export function lastJsonObject(text: string): Record<string, unknown> | undefined {
  const candidates = [text.trim()];
  const first = text.indexOf('{');
  const last = text.lastIndexOf('}');
  if (first >= 0 && last > first) candidates.push(text.slice(first, last + 1));
  for (const candidate of candidates) {
    try {
      const value: unknown = JSON.parse(candidate);
      if (isRecord(value)) return value;
    } catch {
      // try the next form
    }
  }
  return jsonLines(text).at(-1);
}

export function stringField(value: unknown, key: string): string | undefined {
  if (!isRecord(value)) return undefined;
  const field = value[key];
  return typeof field === 'string' ? field : undefined;
}

export function recordField(value: unknown, key: string): Record<string, unknown> | undefined {
  if (!isRecord(value)) return undefined;
  const field = value[key];
  return isRecord(field) ? field : undefined;
}

/** The summary used when a CLI's output could not be read as the expected JSON. */
export function fallbackSummary(stdout: string, stderr: string): string {
  const text = stdout.trim() || stderr.trim();
  if (!text) return '(the worker printed nothing)';
  return `(output was not the expected JSON) ${clip(text.split('\n').slice(-5).join(' '), 500)}`;
}
