import { jsonrepair } from 'jsonrepair';
import { Attempt, describeAt, MAX_JSON_DEPTH, messageOf } from './json-budget.ts';
import { looksLikeJsonStart } from './json-start.ts';
import {
  MAX_CHILDREN,
  MAX_SCAN_DEPTH,
  scanJsonSpans,
  type JsonTop,
  type ScanSpan,
  type ScanSummary,
  type Span,
} from './json-scan.ts';

export type { JsonTop } from './json-scan.ts';

export interface ExtractOptions {
  /** Which top-level values count: objects, arrays or both (default). */
  top?: JsonTop;
}

export interface FoundJson {
  ok: true;
  value: unknown;
  /** Where the JSON text starts and ends (exclusive) in the input. */
  start: number;
  end: number;
  /** True when jsonrepair had to fix the text (quotes, commas, a truncated end). */
  repaired: boolean;
}

export type JsonExtraction = FoundJson | { ok: false; reason: string };

export {
  MAX_FAILED_PARSES,
  MAX_JSON_DEPTH,
  MAX_PARSE_CHARS,
  MAX_PARSED_SPANS,
  MAX_REPAIR_CHARS,
} from './json-budget.ts';

/**
 * Finds the first complete top-level JSON value in a model reply: inside
 * code fences or not, with prose before and after, nested values, and
 * braces or quotes inside strings. Near-JSON (trailing commas, single
 * quotes, bare keys, a truncated end) is fixed with jsonrepair. When there
 * is nothing, `reason` says what was found and why it was not JSON.
 *
 * One linear scan finds the candidates; what is parsed and repaired is
 * bounded (see `json-budget.ts`), so a 10 MB reply of any shape costs the
 * scan plus a few milliseconds.
 */
export function extractJson(text: string, options: ExtractOptions = {}): JsonExtraction {
  const top = options.top ?? 'any';
  const { found, attempt, summary } = search(text, top, () => true);
  return found ?? { ok: false, reason: explain(attempt, top, summary) };
}

/**
 * The first JSON value (as `extractJson` finds them) that `accept` takes,
 * e.g. the first object with a `result` key; undefined when there is none
 * (or when the budgets ran out first: at most `MAX_PARSED_SPANS` spans are
 * tried, accepted or not).
 */
export function findJsonValue(
  text: string,
  accept: (value: unknown) => boolean,
  options: ExtractOptions = {},
): FoundJson | undefined {
  return search(text, options.top ?? 'any', accept).found;
}

function search(
  text: string,
  top: JsonTop,
  accept: (value: unknown) => boolean,
): { found?: FoundJson; attempt: Attempt; summary: ScanSummary } {
  const attempt = new Attempt(text);
  let found: FoundJson | undefined;
  const summary = scanJsonSpans(text, top, (span) => {
    found = spanValues(attempt, span, accept);
    return found !== undefined || attempt.gaveUp !== undefined;
  });
  return found ? { found, attempt, summary } : { attempt, summary };
}

/** The span itself if it is JSON; otherwise the first accepted JSON span inside it. */
function spanValues(
  attempt: Attempt,
  span: ScanSpan,
  accept: (value: unknown) => boolean,
): FoundJson | undefined {
  if (span.dropped > 0) {
    attempt.note(
      span.start,
      () => `holds more than ${MAX_CHILDREN} parts; ${span.dropped} were skipped`,
    );
  }
  if (!span.complete) return incompleteValue(attempt, span, accept);
  if (span.depth > MAX_JSON_DEPTH && looksLikeJsonStart(attempt.text, span.start)) {
    // Absurdly deep JSON is skipped whole, its parts included.
    attempt.note(span.start, () => `nests ${span.depth} levels deep (limit ${MAX_JSON_DEPTH})`);
    return undefined;
  }
  const length = span.end - span.start;
  if (!span.mismatched && length > attempt.parseBudget) {
    // Too long to parse: skipped whole, as a value that parsed would be (its parts are its own).
    if (attempt.tryOne())
      attempt.note(span.start, () => `is too long to parse (${length} characters)`);
    return undefined;
  }
  const whole = parseSpan(attempt, span, !span.mismatched);
  // A value that parses but is not accepted hides nothing: the spans inside it are its parts.
  if (whole) return accept(whole.value) ? whole : undefined;
  for (const child of span.children) {
    if (attempt.gaveUp !== undefined) break;
    const inner = parseSpan(attempt, child, true);
    if (inner && accept(inner.value)) return inner;
  }
  return undefined;
}

/**
 * An unclosed span: the outermost still-open opener that looks like JSON is
 * repaired up to the end of the text (a truncated reply); closed spans
 * before it come first, closed spans after it count when repair fails.
 * A span cut off for its depth is never repaired: only its parts count.
 */
function incompleteValue(
  attempt: Attempt,
  span: ScanSpan,
  accept: (value: unknown) => boolean,
): FoundJson | undefined {
  const { text } = attempt;
  if (span.tooDeep) {
    attempt.note(span.start, () => `nests more than ${MAX_SCAN_DEPTH} levels deep`);
  }
  const opener = span.openAtEnd.find((pos) => looksLikeJsonStart(text, pos));
  if (opener === undefined && !span.tooDeep) attempt.note(span.start, () => 'is never closed');
  let tail: FoundJson | undefined;
  let triedTail = opener === undefined;
  for (const child of span.children) {
    if (attempt.gaveUp !== undefined) return undefined;
    if (!triedTail && child.start > opener!) {
      triedTail = true;
      tail = repairTail(attempt, span, opener!);
      if (tail && accept(tail.value)) return tail;
    }
    if (tail && child.start >= tail.start) continue;
    const inner = parseSpan(attempt, child, true);
    if (inner && accept(inner.value)) return inner;
  }
  if (triedTail) return undefined;
  tail = repairTail(attempt, span, opener!);
  return tail && accept(tail.value) ? tail : undefined;
}

function parseSpan(attempt: Attempt, span: Span, strictAllowed: boolean): FoundJson | undefined {
  const { text } = attempt;
  if (!looksLikeJsonStart(text, span.start)) {
    attempt.note(span.start, () => 'does not start like JSON');
    return undefined;
  }
  if (span.depth > MAX_JSON_DEPTH) {
    attempt.note(span.start, () => `nests ${span.depth} levels deep (limit ${MAX_JSON_DEPTH})`);
    return undefined;
  }
  if (!attempt.tryOne()) return undefined;
  const length = span.end - span.start;
  let problem = 'has brackets that do not match';
  if (strictAllowed) {
    if (!attempt.takeParse(length)) {
      attempt.note(span.start, () => `is too long to parse (${length} characters)`);
      return undefined;
    }
    const slice = text.slice(span.start, span.end);
    try {
      return {
        ok: true,
        value: JSON.parse(slice),
        start: span.start,
        end: span.end,
        repaired: false,
      };
    } catch (error) {
      problem = `is not valid JSON (${messageOf(error)})`;
    }
  }
  attempt.failed();
  const repaired = repair(attempt, span.start, span.end, problem);
  if (repaired === undefined) return undefined;
  return { ok: true, value: repaired, start: span.start, end: span.end, repaired: true };
}

/** A truncated reply: the value from `opener` to the end of the text, closed or repaired. */
function repairTail(attempt: Attempt, span: ScanSpan, opener: number): FoundJson | undefined {
  const { text } = attempt;
  if (span.depth > MAX_JSON_DEPTH) {
    attempt.note(opener, () => `is never closed and nests ${span.depth} levels deep`);
    return undefined;
  }
  if (!attempt.tryOne()) return undefined;
  attempt.failed();
  let value = closeTruncated(attempt, span, opener);
  value ??= repair(attempt, opener, text.length, 'is never closed');
  if (value === undefined) return undefined;
  return { ok: true, value, start: opener, end: text.length, repaired: true };
}

/**
 * A reply cut off inside a string or after a complete element, made whole
 * by what it lacks: the closing quote, then a closer for each open bracket
 * (a trailing comma dropped). Linear in the length of the tail, so a long
 * truncated reply needs no jsonrepair; undefined when that is not enough.
 */
function closeTruncated(attempt: Attempt, span: ScanSpan, opener: number): unknown {
  const { text } = attempt;
  const open = span.openAtEnd.slice(span.openAtEnd.indexOf(opener));
  if (!attempt.takeParse(text.length - opener + open.length + 1)) return undefined;
  let end = text.length;
  if (!span.inString) {
    while (end > opener && isSpaceOrComma(text.charCodeAt(end - 1))) end--;
  }
  let closers = span.inString ? '"' : '';
  for (let k = open.length - 1; k >= 0; k--) closers += text[open[k]!] === '{' ? '}' : ']';
  try {
    return JSON.parse(text.slice(opener, end) + closers) as unknown;
  } catch {
    return undefined;
  }
}

function isSpaceOrComma(c: number): boolean {
  return c === 0x2c || c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function repair(attempt: Attempt, start: number, end: number, problem: string): unknown {
  const length = end - start;
  if (!attempt.takeRepair(length)) {
    attempt.note(start, () => `${problem} and is too long to repair (${length} characters)`);
    return undefined;
  }
  try {
    return JSON.parse(jsonrepair(attempt.text.slice(start, end))) as unknown;
  } catch (error) {
    attempt.note(start, () => `${problem}; repair failed: ${messageOf(error)}`);
    return undefined;
  }
}

function explain(attempt: Attempt, top: JsonTop, summary: ScanSummary): string {
  const { text } = attempt;
  const what = top === 'object' ? "'{'" : top === 'array' ? "'['" : "'{' or '['";
  const examined = summary.spans + summary.proseOpeners;
  if (examined === 0) {
    if (text.trim() === '') return 'no JSON found: the reply is empty';
    return `no JSON found: the reply (${text.length} characters) has no ${what}`;
  }
  const counted = `${examined} bracketed span${examined === 1 ? '' : 's'} examined`;
  const gaveUp = attempt.gaveUp !== undefined ? `, ${attempt.gaveUp}` : '';
  const notes = [...attempt.notes];
  for (const pos of summary.prose) {
    if (notes.length < 3) notes.push(`${describeAt(text, pos)} is prose, not JSON`);
  }
  return `no JSON found: ${counted}${gaveUp}; ${notes.join('; ')}`;
}
