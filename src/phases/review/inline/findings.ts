/**
 * A review of a merge request's own change: the verdict, read by the same
 * parser as every review (JSON first, then verdict markers, else FAIL), and
 * the findings on lines of the diff, each checked on its own so one bad
 * finding does not lose the others.
 */
import * as z from 'zod';
import { findJsonValue } from '../../../llm/extract-json.ts';
import { parseReviewVerdict, type ParsedReviewVerdict } from '../../../llm/review-verdict.ts';

export const SEVERITIES = ['critical', 'major', 'minor', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

export const ReviewFindingSchema = z.object({
  file: z.string().min(1).max(1000),
  line: z.number().int().positive(),
  end_line: z.number().int().positive().optional(),
  severity: z.enum(SEVERITIES),
  message: z.string().min(1).max(4000),
  /** The lines `line`..`end_line` as they should read instead (a concrete fix). */
  suggestion: z.string().max(20_000).optional(),
});
export type ReviewFinding = z.infer<typeof ReviewFindingSchema>;

export interface InlineReview {
  verdict: ParsedReviewVerdict;
  findings: ReviewFinding[];
  /** Findings the reply held that were not usable (missing file, line, …). */
  unusable: number;
}

export function parseInlineReview(text: string): InlineReview {
  const verdict = parseReviewVerdict(text);
  let raw: unknown[] = [];
  findJsonValue(
    text,
    (value) => {
      const list = (value as { findings?: unknown } | null)?.findings;
      if (!Array.isArray(list)) return false;
      raw = list;
      return true;
    },
    { top: 'object' },
  );
  const findings: ReviewFinding[] = [];
  for (const item of raw) {
    const parsed = ReviewFindingSchema.safeParse(item);
    if (parsed.success) findings.push(parsed.data);
  }
  return { verdict, findings, unusable: raw.length - findings.length };
}
