/**
 * The single linear scan behind `extractJson`: it walks the text once and
 * reports bracketed spans that may hold JSON, in the order they start.
 *
 * - Outside a span, only `{` (and `[` unless objects are wanted) opens one;
 *   quotes in prose are ignored, and prose is skipped with `indexOf`.
 * - Inside a span, `"` strings (with `\` escapes) hide brackets, and every
 *   `}`/`]` closes the innermost open bracket (a mismatched pair marks the
 *   span so that only repair is tried on it).
 * - For each top-level span it also keeps the *maximal* closed spans inside
 *   it, so that a stray `{` in prose does not hide the JSON that follows.
 * - Every span knows how deeply it nests. Brackets deeper than
 *   `TRACKED_DEPTH` are only counted, so absurd nesting costs no memory.
 *
 * Each character is looked at once, so the scan is linear in the length of
 * the text whatever its shape.
 */

export type JsonTop = 'object' | 'array' | 'any';

export interface Span {
  start: number;
  /** Exclusive end. */
  end: number;
  /** Levels of nesting, counting the span's own brackets. */
  depth: number;
}

/** A top-level span. The object is reused: read it during the visit only. */
export interface ScanSpan extends Span {
  /** False when the text ended before the span closed. */
  complete: boolean;
  /** A closer did not match its opener (`{ ... ]`). */
  mismatched: boolean;
  /** Maximal closed spans inside this one, by position. */
  children: readonly Span[];
  /** For an incomplete span: the tracked openers still open at the end, outermost first. */
  openAtEnd: readonly number[];
}

/** Brackets below this depth are tracked by position; deeper ones are only counted. */
export const TRACKED_DEPTH = 1024;

const OPEN_OBJECT = 0x7b; // {
const CLOSE_OBJECT = 0x7d; // }
const OPEN_ARRAY = 0x5b; // [
const CLOSE_ARRAY = 0x5d; // ]
const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \

/**
 * Finds the next top-level opener. It remembers the next `{` and `[` it has
 * seen, so that a text with many of one and none of the other is not
 * searched to its end again and again.
 */
class OpenerFinder {
  private brace: number;
  private bracket: number;

  constructor(
    private readonly text: string,
    objects: boolean,
    arrays: boolean,
  ) {
    this.brace = objects ? -2 : -1;
    this.bracket = arrays ? -2 : -1;
  }

  /** Position of the next opener at or after `from`, or -1. */
  next(from: number): number {
    if (this.brace !== -1 && this.brace < from) this.brace = this.text.indexOf('{', from);
    if (this.bracket !== -1 && this.bracket < from) this.bracket = this.text.indexOf('[', from);
    if (this.brace === -1) return this.bracket;
    return this.bracket === -1 || this.brace < this.bracket ? this.brace : this.bracket;
  }
}

/** Position of the quote that ends the string whose content starts at `from`, or -1. */
function stringEnd(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === BACKSLASH) i++;
    else if (c === QUOTE) return i;
  }
  return -1;
}

export interface ScanSummary {
  /** Top-level bracketed spans seen. */
  spans: number;
  /** Where the first few spans that were plainly prose (`{see above}`) start. */
  prose: number[];
}

const PROSE_SAMPLES = 3;

/**
 * Calls `visit` for every top-level span that may hold JSON, in order, and
 * stops as soon as `visit` returns true. A span that does not start like
 * JSON and holds no closed span is prose: it is counted, not visited.
 */
export function scanJsonSpans(
  text: string,
  top: JsonTop,
  visit: (span: ScanSpan) => boolean,
): ScanSummary {
  const objects = top !== 'array';
  const arrays = top !== 'object';
  // Tracked openers: position (arrays as -pos-1) and the deepest level reached inside.
  const opened = new Int32Array(TRACKED_DEPTH);
  const deepest = new Int32Array(TRACKED_DEPTH);
  let depth = 0;
  let mismatched = false;
  const children: Span[] = [];
  const span: ScanSpan = {
    start: 0,
    end: 0,
    depth: 0,
    complete: true,
    mismatched: false,
    children,
    openAtEnd: [],
  };
  const summary: ScanSummary = { spans: 0, prose: [] };
  let rootIsJson = false;
  const openers = new OpenerFinder(text, objects, arrays);
  let i = openers.next(0);

  while (i !== -1 && i < text.length) {
    const c = text.charCodeAt(i);
    if (depth === 0) {
      // At an opener found by the OpenerFinder.
      opened[0] = c === OPEN_OBJECT ? i : -i - 1;
      deepest[0] = 1;
      depth = 1;
      mismatched = false;
      if (children.length > 0) children.length = 0;
      rootIsJson = looksLikeJsonStart(text, i);
      i++;
      continue;
    }
    if (c === QUOTE) {
      const end = stringEnd(text, i + 1);
      if (end === -1) break;
      i = end + 1;
      continue;
    }
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (depth < TRACKED_DEPTH) {
        opened[depth] = c === OPEN_OBJECT ? i : -i - 1;
        deepest[depth] = depth + 1;
      } else if (deepest[TRACKED_DEPTH - 1]! < depth + 1) {
        deepest[TRACKED_DEPTH - 1] = depth + 1;
      }
      depth++;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      depth--;
      if (depth < TRACKED_DEPTH) {
        const enc = opened[depth]!;
        const isArray = enc < 0;
        const start = isArray ? -enc - 1 : enc;
        const inner = deepest[depth]!;
        if (isArray !== (c === CLOSE_ARRAY)) mismatched = true;
        if (depth > 0 && deepest[depth - 1]! < inner) deepest[depth - 1] = inner;
        if (depth === 0) {
          summary.spans++;
          if (rootIsJson || children.length > 0) {
            span.start = start;
            span.end = i + 1;
            span.depth = inner;
            span.mismatched = mismatched;
            if (visit(span)) return summary;
          } else if (summary.prose.length < PROSE_SAMPLES) {
            summary.prose.push(start);
          }
          i = openers.next(i + 1);
          continue;
        }
        if (!isArray || arrays) {
          // Keep only maximal closed spans: this one contains any recorded after its start.
          while (children.length > 0 && children[children.length - 1]!.start > start) {
            children.pop();
          }
          children.push({ start, end: i + 1, depth: inner - depth });
        }
      }
    }
    i++;
  }
  if (depth > 0) {
    summary.spans++;
    const tracked = Math.min(depth, TRACKED_DEPTH);
    const openAtEnd: number[] = [];
    for (let k = 0; k < tracked; k++) openAtEnd.push(opened[k]! < 0 ? -opened[k]! - 1 : opened[k]!);
    const rootDepth = Math.max(deepest[0]!, depth);
    visit({
      start: openAtEnd[0]!,
      end: text.length,
      depth: rootDepth,
      complete: false,
      mismatched,
      children,
      openAtEnd,
    });
  }
  return summary;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

function skipSpace(text: string, i: number): number {
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return i;
}

function isIdentStart(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f || c === 0x24;
}

function isIdentPart(c: number): boolean {
  return isIdentStart(c) || (c >= 0x30 && c <= 0x39);
}

const VALUE_STARTS = new Set([...'"\'{[]-0123456789'].map((ch) => ch.charCodeAt(0)));

/**
 * Whether the bracket at `pos` starts something shaped like JSON: an object
 * whose first key is quoted (or a bare identifier followed by `:`), an empty
 * one, or an array whose first element starts like a JSON value. This keeps
 * prose such as `{see above}` or `[x]` away from jsonrepair, which would
 * otherwise turn it into data.
 */
export function looksLikeJsonStart(text: string, pos: number): boolean {
  const open = text.charCodeAt(pos);
  const i = skipSpace(text, pos + 1);
  if (i >= text.length) return false;
  const next = text.charCodeAt(i);
  if (open === OPEN_OBJECT) {
    if (next === QUOTE || next === 0x27 || next === CLOSE_OBJECT) return true;
    if (!isIdentStart(next)) return false;
    let j = i + 1;
    const limit = Math.min(text.length, i + 64);
    while (j < limit && isIdentPart(text.charCodeAt(j))) j++;
    return text.charCodeAt(skipSpace(text, j)) === 0x3a; // :
  }
  if (VALUE_STARTS.has(next)) return true;
  return /^(?:true|false|null)\b/.test(text.slice(i, i + 6));
}
