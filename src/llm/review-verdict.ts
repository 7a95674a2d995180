import * as z from 'zod';
import type { Logger } from '../log/logger.ts';
import { findJsonValue } from './extract-json.ts';
import { decidingMarker, MARKER_LEVELS, type Verdict } from './verdict-markers.ts';

export type { Verdict } from './verdict-markers.ts';

export const VERDICTS = ['PASS', 'FAIL', 'PASS_WITH_SUGGESTIONS'] as const;

/** The verdict shape the review prompts ask for (SPEC contracts). */
export const ReviewVerdictReply = z.object({
  result: z.enum(VERDICTS),
  feedback: z.string(),
});
export type ReviewVerdictReply = z.infer<typeof ReviewVerdictReply>;

export interface ParsedReviewVerdict {
  result: Verdict;
  /** The JSON `feedback`; for markers and the default, the whole review text. */
  feedback?: string;
  /** Which path decided: a JSON object, a marker line, or nothing (→ FAIL). */
  source: 'json' | 'marker' | 'default';
  /** The marker level that decided (e.g. `最終判定`, `判定`), for `source: 'marker'`. */
  marker?: string;
}

export interface ParseVerdictOptions {
  /** Logs which path decided (JSON, a marker or the default), to trace a surprising verdict. */
  logger?: Logger;
}

const VERDICT_KEYS = new Set(['result', 'verdict', 'decision']);

/**
 * Reads a review's verdict (docs/review.md):
 *
 * 1. the first JSON object with a `result`, `verdict` or `decision` key
 *    whose value is a verdict;
 * 2. otherwise the marker lines, by priority `最終判定` > `判定結果` > `判定`
 *    > `**結果**` > `DECISION` (English equivalents at each level), the last
 *    line of the highest level present deciding (read from the end, so a
 *    top-level marker near the end settles it at once);
 * 3. otherwise FAIL.
 *
 * Linear in the length of the text; no regular expression over the text.
 */
export function parseReviewVerdict(
  text: string,
  options: ParseVerdictOptions = {},
): ParsedReviewVerdict {
  const { logger } = options;
  let fromJson: { result: Verdict; feedback?: string } | undefined;
  findJsonValue(
    text,
    (value) => {
      fromJson = verdictOfObject(value);
      return fromJson !== undefined;
    },
    { top: 'object' },
  );
  if (fromJson) {
    logger?.info('review verdict read from JSON', { result: fromJson.result });
    return { ...fromJson, source: 'json' };
  }
  const hit = decidingMarker(text);
  const trimmed = text.trim();
  const feedback = trimmed === '' ? undefined : trimmed;
  if (hit) {
    const marker = MARKER_LEVELS[hit.level]!.name;
    const result = hit.verdict;
    logger?.info('review verdict read from marker', { result, marker });
    return { result, source: 'marker', marker, ...(feedback ? { feedback } : {}) };
  }
  logger?.warn('review verdict defaulted to FAIL', {
    reason: 'no JSON verdict and no verdict marker',
    length: text.length,
  });
  return { result: 'FAIL', source: 'default', ...(feedback ? { feedback } : {}) };
}

function verdictOfObject(value: unknown): { result: Verdict; feedback?: string } | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  for (const [key, raw] of Object.entries(record)) {
    if (!VERDICT_KEYS.has(key.toLowerCase())) continue;
    const result = normaliseVerdict(raw);
    if (!result) continue;
    const feedback = record['feedback'];
    return typeof feedback === 'string' ? { result, feedback } : { result };
  }
  return undefined;
}

/** `"pass"`, `" Pass with suggestions "`, `"PASS-WITH-SUGGESTIONS"` → the verdict. */
export function normaliseVerdict(raw: unknown): Verdict | undefined {
  if (typeof raw !== 'string') return undefined;
  const word = raw
    .trim()
    .toUpperCase()
    .replace(/[\s-]+/g, '_');
  return (VERDICTS as readonly string[]).includes(word) ? (word as Verdict) : undefined;
}
