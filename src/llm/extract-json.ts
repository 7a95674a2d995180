import { jsonrepair } from 'jsonrepair';
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

/** Values nested deeper than this are not parsed (no model reply needs it; parsers choke on it). */
export const MAX_JSON_DEPTH = 512;
/** At most this many characters, over all candidates of one call, go through jsonrepair. */
export const MAX_REPAIR_CHARS = 256 * 1024;
/** After this many JSON-looking spans failed to parse, the search gives up. */
export const MAX_FAILED_PARSES = 256;

const MAX_NOTES = 3;
const PREVIEW = 24;

/** State of one extraction: budgets and the first few reasons for rejecting a span. */
class Attempt {
  readonly notes: string[] = [];
  repairBudget = MAX_REPAIR_CHARS;
  failedParses = 0;
  gaveUp = false;

  constructor(readonly text: string) {}

  note(pos: number, why: () => string): void {
    if (this.notes.length < MAX_NOTES) this.notes.push(`${describeAt(this.text, pos)} ${why()}`);
  }

  failed(): void {
    if (++this.failedParses >= MAX_FAILED_PARSES) this.gaveUp = true;
  }
}

/**
 * Finds the first complete top-level JSON value in a model reply: inside
 * code fences or not, with prose before and after, nested values, and
 * braces or quotes inside strings. Near-JSON (trailing commas, single
 * quotes, bare keys, a truncated end) is fixed with jsonrepair. When there
 * is nothing, `reason` says what was found and why it was not JSON.
 *
 * One linear scan finds the candidates; parsing and repair are bounded
 * (`MAX_JSON_DEPTH`, `MAX_REPAIR_CHARS`, `MAX_FAILED_PARSES`), so a 10 MB
 * adversarial reply costs tens of milliseconds.
 */
export function extractJson(text: string, options: ExtractOptions = {}): JsonExtraction {
  const { found, reason } = search(text, options, () => true);
  return found ?? { ok: false, reason };
}

/**
 * The first JSON value (as `extractJson` finds them) that `accept` takes,
 * e.g. the first object with a `result` key; undefined when there is none.
 */
export function findJsonValue(
  text: string,
  accept: (value: unknown) => boolean,
  options: ExtractOptions = {},
): FoundJson | undefined {
  return search(text, options, accept).found;
}

function search(
  text: string,
  options: ExtractOptions,
  accept: (value: unknown) => boolean,
): { found?: FoundJson; reason: string } {
  const top = options.top ?? 'any';
  const attempt = new Attempt(text);
  let found: FoundJson | undefined;
  const summary = scanJsonSpans(text, top, (span) => {
    found = spanValues(attempt, span, accept);
    return found !== undefined || attempt.gaveUp;
  });
  return found ? { found, reason: '' } : { reason: explain(attempt, top, summary) };
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
  const whole = parseSpan(attempt, span, !span.mismatched);
  // A value that parses but is not accepted hides nothing: the spans inside it are its parts.
  if (whole) return accept(whole.value) ? whole : undefined;
  for (const child of span.children) {
    if (attempt.gaveUp) break;
    const inner = parseSpan(attempt, child, true);
    if (inner && accept(inner.value)) return inner;
  }
  return undefined;
}

/**
 * An unclosed span: the outermost still-open opener that looks like JSON is
 * repaired up to the end of the text (a truncated reply); closed spans
 * before it come first, closed spans after it count when repair fails.
 */
function incompleteValue(
  attempt: Attempt,
  span: ScanSpan,
  accept: (value: unknown) => boolean,
): FoundJson | undefined {
  const { text } = attempt;
  if (span.tooDeep) {
    attempt.note(
      span.start,
      () => `nests ${MAX_SCAN_DEPTH} levels deep; the text after it was not examined`,
    );
  }
  const opener = span.tooDeep
    ? undefined
    : span.openAtEnd.find((pos) => looksLikeJsonStart(text, pos));
  if (opener === undefined && !span.tooDeep) attempt.note(span.start, () => 'is never closed');
  let tail: FoundJson | undefined;
  let triedTail = opener === undefined;
  for (const child of span.children) {
    if (attempt.gaveUp) return undefined;
    if (!triedTail && child.start > opener!) {
      triedTail = true;
      tail = repairTail(attempt, opener!, span.depth);
      if (tail && accept(tail.value)) return tail;
    }
    if (tail && child.start >= tail.start) continue;
    const inner = parseSpan(attempt, child, true);
    if (inner && accept(inner.value)) return inner;
  }
  if (triedTail) return undefined;
  tail = repairTail(attempt, opener!, span.depth);
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
  const slice = text.slice(span.start, span.end);
  let strictError = 'has brackets that do not match';
  if (strictAllowed) {
    try {
      return {
        ok: true,
        value: JSON.parse(slice),
        start: span.start,
        end: span.end,
        repaired: false,
      };
    } catch (error) {
      strictError = `is not valid JSON (${messageOf(error)})`;
    }
  }
  const repaired = repair(attempt, slice, span.start, strictError);
  if (repaired === undefined) return undefined;
  return { ok: true, value: repaired, start: span.start, end: span.end, repaired: true };
}

function repairTail(attempt: Attempt, start: number, depth: number): FoundJson | undefined {
  if (depth > MAX_JSON_DEPTH) {
    attempt.note(start, () => `is never closed and nests ${depth} levels deep`);
    return undefined;
  }
  const { text } = attempt;
  const value = repair(attempt, text.slice(start), start, 'is never closed');
  if (value === undefined) return undefined;
  return { ok: true, value, start, end: text.length, repaired: true };
}

function repair(attempt: Attempt, slice: string, pos: number, problem: string): unknown {
  if (slice.length > attempt.repairBudget) {
    attempt.failed();
    attempt.note(pos, () => `${problem} and is too long to repair (${slice.length} characters)`);
    return undefined;
  }
  attempt.repairBudget -= slice.length;
  try {
    return JSON.parse(jsonrepair(slice)) as unknown;
  } catch (error) {
    attempt.failed();
    attempt.note(pos, () => `${problem}; repair failed: ${messageOf(error)}`);
    return undefined;
  }
}

function explain(attempt: Attempt, top: JsonTop, summary: ScanSummary): string {
  const { text } = attempt;
  const what = top === 'object' ? "'{'" : top === 'array' ? "'['" : "'{' or '['";
  if (!/\S/.test(text)) return 'no JSON found: the reply is empty';
  if (summary.spans === 0) {
    return `no JSON found: the reply (${text.length} characters) has no ${what}`;
  }
  const counted = `${summary.spans} bracketed span${summary.spans === 1 ? '' : 's'} examined`;
  const gaveUp = attempt.gaveUp ? `, gave up after ${attempt.failedParses} failed parses` : '';
  const notes = [...attempt.notes];
  for (const pos of summary.prose) {
    if (notes.length < MAX_NOTES) notes.push(`${describeAt(text, pos)} is prose, not JSON`);
  }
  return `no JSON found: ${counted}${gaveUp}; ${notes.join('; ')}`;
}

function describeAt(text: string, pos: number): string {
  const kind = text[pos] === '[' ? 'array' : 'object';
  const preview = text.slice(pos, pos + PREVIEW).replace(/\s+/g, ' ');
  const more = text.length > pos + PREVIEW ? '…' : '';
  return `the ${kind} at offset ${pos} (${JSON.stringify(preview + more)})`;
}

function messageOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.length > 100 ? `${message.slice(0, 97)}...` : message;
}
