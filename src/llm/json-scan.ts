/**
 * The single linear scan behind `extractJson`: it walks the text once and
 * reports bracketed spans that may hold JSON, in the order they start.
 *
 * - Outside a span, only `{` (and `[` unless objects are wanted) that
 *   starts like JSON (`looksLikeJsonStart`) opens one; quotes in prose are
 *   ignored, prose is skipped with `indexOf`, and an opener that starts
 *   like prose (`{see above}`) is passed over, so the JSON inside or after
 *   prose in brackets is found as a span of its own.
 * - Inside a span, `"` strings (with `\` escapes) hide brackets, and every
 *   `}`/`]` closes the innermost open bracket (a mismatched pair marks the
 *   span so that only repair is tried on it).
 * - For each top-level span it also keeps the *maximal* closed spans inside
 *   it that start like JSON (at most `MAX_CHILDREN`), so that a stray `{`
 *   in prose does not hide the JSON that follows.
 * - Every span knows how deeply it nests. At `MAX_SCAN_DEPTH` open
 *   brackets the span is reported as too deep (nothing a model writes
 *   nests that deep) and the scan starts afresh at the opener that went
 *   one level too far, so a run of `{` cannot hide the JSON after it.
 *
 * Each character is looked at once, so the scan is linear in the length of
 * the text whatever its shape.
 */

import { isOpener, OpenerFinder, skipOpenerRun } from './json-openers.ts';
import { END, MAX_SCAN_DEPTH, RootScan, TOO_DEEP, type ScanSpan } from './json-span-scan.ts';
import { looksLikeJsonStart } from './json-start.ts';

export { MAX_CHILDREN, MAX_SCAN_DEPTH, type ScanSpan, type Span } from './json-span-scan.ts';

export type JsonTop = 'object' | 'array' | 'any';

export interface ScanSummary {
  /** Top-level spans that start like JSON. */
  spans: number;
  /** Openers passed over because they start like prose (`{see above}`). */
  proseOpeners: number;
  /** Where the first few of those are. */
  prose: number[];
}

const PROSE_SAMPLES = 3;

/**
 * Calls `visit` for every top-level span that starts like JSON, in order,
 * and stops as soon as `visit` returns true. Openers that start like prose
 * are counted, not visited.
 */
export function scanJsonSpans(
  text: string,
  top: JsonTop,
  visit: (span: ScanSpan) => boolean,
): ScanSummary {
  const summary: ScanSummary = { spans: 0, proseOpeners: 0, prose: [] };
  const openers = new OpenerFinder(text, top !== 'array', top !== 'object');
  const root = new RootScan(text, top !== 'object');
  const arrays = top !== 'object';
  for (let start = openers.next(0); start !== -1;) {
    const run = skipOpenerRun(text, start, arrays);
    if (run !== start) {
      if (summary.proseOpeners < PROSE_SAMPLES) summary.prose.push(start);
      summary.proseOpeners += run - start;
      start = run < text.length && isOpener(text.charCodeAt(run), arrays) ? run : openers.next(run);
      continue;
    }
    if (!looksLikeJsonStart(text, start)) {
      if (summary.proseOpeners++ < PROSE_SAMPLES) summary.prose.push(start);
      start = openers.next(start + 1);
      continue;
    }
    const end = root.run(text, start);
    summary.spans++;
    if (visit(spanAt(root, text, start, end))) break;
    if (end === END) break;
    // After a span cut off for its depth, the opener one level too deep starts the next.
    start = openers.next(end === TOO_DEEP ? root.at : end);
  }
  return summary;
}

const NO_OPENERS: readonly number[] = [];

/** The span `root` just scanned from `start`. */
function spanAt(root: RootScan, text: string, start: number, end: number): ScanSpan {
  const { inString, mismatched, children, dropped } = root;
  const base = { start, inString, mismatched, children, dropped };
  if (end >= 0) {
    const depth = root.rootDepth;
    return { ...base, end, depth, complete: true, tooDeep: false, openAtEnd: NO_OPENERS };
  }
  if (end === TOO_DEEP) {
    // Never repaired, so its open brackets are not listed.
    const depth = MAX_SCAN_DEPTH;
    return { ...base, end: root.at, depth, complete: false, tooDeep: true, openAtEnd: NO_OPENERS };
  }
  const { openAtEnd, depth } = root.openState();
  return { ...base, end: text.length, depth, complete: false, tooDeep: false, openAtEnd };
}
