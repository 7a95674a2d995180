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
 *   it that start like JSON (at most `MAX_CHILDREN`), so that a stray `{`
 *   in prose does not hide the JSON that follows.
 * - Every span knows how deeply it nests. At `MAX_SCAN_DEPTH` open
 *   brackets the scan stops: nothing a model writes nests that deep, and
 *   the rest of such a text is not worth a look.
 *
 * Each character is looked at once, so the scan is linear in the length of
 * the text whatever its shape.
 */

import { looksLikeJsonStart } from './json-start.ts';

export type JsonTop = 'object' | 'array' | 'any';

export interface Span {
  start: number;
  /** Exclusive end. */
  end: number;
  /** Levels of nesting, counting the span's own brackets. */
  depth: number;
}

/** A top-level span. Its `children` array is reused: read it during the visit only. */
export interface ScanSpan extends Span {
  /** False when the text ended (or the scan stopped) before the span closed. */
  complete: boolean;
  /** The scan stopped inside this span: it nests `MAX_SCAN_DEPTH` levels deep. */
  tooDeep: boolean;
  /** A closer did not match its opener (`{ ... ]`). */
  mismatched: boolean;
  /** Maximal closed spans inside this one that start like JSON, by position. */
  children: readonly Span[];
  /** Such spans left out because there were more than `MAX_CHILDREN`. */
  dropped: number;
  /** For an incomplete span: the tracked openers still open at the end, outermost first. */
  openAtEnd: readonly number[];
}

/** At this many open brackets the scan stops (see above). */
export const MAX_SCAN_DEPTH = 1024;

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

const STRING_WINDOW = 64;

/**
 * Finds where strings end. Long runs without escapes are skipped with
 * `indexOf`; where escapes are dense, a short window is walked character
 * by character. The next backslash is remembered (the scan only moves
 * forward), so the cost stays linear either way.
 */
class StringEnds {
  private slash = -2;

  constructor(private readonly text: string) {}

  /** Position of the quote ending the string whose content starts at `from`, or -1. */
  end(from: number): number {
    const text = this.text;
    let i = from;
    for (;;) {
      const quote = text.indexOf('"', i);
      if (quote === -1) return -1;
      if (this.slash !== -1 && this.slash < i) this.slash = text.indexOf('\\', i);
      if (this.slash === -1 || this.slash > quote) return quote;
      // An escape comes first: walk a window from it.
      const stop = Math.min(text.length, this.slash + STRING_WINDOW);
      let j = this.slash;
      while (j < stop) {
        const c = text.charCodeAt(j);
        if (c === BACKSLASH) j += 2;
        else if (c === QUOTE) return j;
        else j++;
      }
      i = j;
    }
  }
}

/** Character classes for the scan: everything else is plain text. */
const PLAIN = 0;
const K_QUOTE = 1;
const K_OPEN = 2;
const K_CLOSE = 3;
const CLASS = new Uint8Array(128);
CLASS[QUOTE] = K_QUOTE;
CLASS[OPEN_OBJECT] = K_OPEN;
CLASS[OPEN_ARRAY] = K_OPEN;
CLASS[CLOSE_OBJECT] = K_CLOSE;
CLASS[CLOSE_ARRAY] = K_CLOSE;

export interface ScanSummary {
  /** Top-level bracketed spans seen. */
  spans: number;
  /** Where the first few spans that were plainly prose (`{see above}`) start. */
  prose: number[];
}

const PROSE_SAMPLES = 3;

/** The bookkeeping of one top-level span while it is scanned. */
class RootScan {
  /** Open brackets: position (arrays as -pos-1), and the deepest level reached inside. */
  readonly opened = new Int32Array(MAX_SCAN_DEPTH);
  readonly deepest = new Int32Array(MAX_SCAN_DEPTH);
  readonly children: Span[] = [];
  /** Closed JSON-looking spans left out because `children` was full. */
  dropped = 0;
  /** Open brackets when the scan of the span ended. */
  depth = 0;
  mismatched = false;
  /** Set when the root closes: its nesting depth. */
  rootDepth = 0;
  private readonly strings: StringEnds;

  constructor(
    private readonly text: string,
    private readonly keepArrays: boolean,
  ) {
    this.strings = new StringEnds(text);
  }

  /**
   * Scans the span opened at `start`. Returns the index after its closer,
   * `END` when the text ends first, or `TOO_DEEP` when it nests too deeply.
   */
  run(text: string, start: number): number {
    this.mismatched = false;
    this.dropped = 0;
    if (this.children.length > 0) this.children.length = 0;
    const { opened, deepest } = this;
    opened[0] = text.charCodeAt(start) === OPEN_OBJECT ? start : -start - 1;
    deepest[0] = 1;
    let depth = 1; // a local: this is the hot loop
    const n = text.length;
    for (let i = start + 1; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c > 0x7d) continue;
      const kind = CLASS[c]!;
      if (kind === PLAIN) continue;
      if (kind === K_OPEN) {
        if (depth === MAX_SCAN_DEPTH) {
          this.depth = depth;
          return TOO_DEEP;
        }
        opened[depth] = c === OPEN_OBJECT ? i : -i - 1;
        deepest[depth] = depth + 1;
        depth++;
      } else if (kind === K_QUOTE) {
        i = this.strings.end(i + 1);
        if (i === -1) break;
      } else if (this.close(i, c, --depth)) {
        return i + 1;
      }
    }
    this.depth = depth;
    return END;
  }

  /** Closes the bracket at `depth`; true when that closed the root. */
  private close(i: number, c: number, depth: number): boolean {
    const { opened, deepest } = this;
    const enc = opened[depth]!;
    const isArray = enc < 0;
    const start = isArray ? -enc - 1 : enc;
    const inner = deepest[depth]!;
    if (isArray !== (c === CLOSE_ARRAY)) this.mismatched = true;
    if (depth === 0) {
      this.rootDepth = inner;
      return true;
    }
    if (deepest[depth - 1]! < inner) deepest[depth - 1] = inner;
    // Keep the maximal closed spans that may be JSON; prose such as `{x}` keeps its parts instead.
    const children = this.children;
    if (children.length >= MAX_CHILDREN) {
      this.dropped++;
    } else if ((!isArray || this.keepArrays) && looksLikeJsonStart(this.text, start)) {
      while (children.length > 0 && children[children.length - 1]!.start > start) children.pop();
      children.push({ start, end: i + 1, depth: inner - depth });
    }
    return false;
  }

  /** For a span cut off: the openers still open (outermost first) and the depth reached. */
  openState(): { openAtEnd: number[]; depth: number } {
    const openAtEnd: number[] = [];
    let depth = this.depth;
    for (let k = 0; k < this.depth; k++) {
      const enc = this.opened[k]!;
      openAtEnd.push(enc < 0 ? -enc - 1 : enc);
      depth = Math.max(depth, this.deepest[k]!);
    }
    return { openAtEnd, depth };
  }
}

const END = -1;
const TOO_DEEP = -2;
/** Closed spans kept per top-level span (a broken span with more is adversarial). */
export const MAX_CHILDREN = 4096;

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
  const summary: ScanSummary = { spans: 0, prose: [] };
  const openers = new OpenerFinder(text, top !== 'array', top !== 'object');
  const root = new RootScan(text, top !== 'object');
  for (let start = openers.next(0); start !== -1;) {
    const end = root.run(text, start);
    summary.spans++;
    const { mismatched, children, dropped } = root;
    if (end < 0) {
      const { openAtEnd, depth } = root.openState();
      const tooDeep = end === TOO_DEEP;
      visit({
        start,
        end: text.length,
        depth,
        complete: false,
        tooDeep,
        mismatched,
        children,
        dropped,
        openAtEnd,
      });
      break;
    }
    if (children.length > 0 || looksLikeJsonStart(text, start)) {
      const depth = root.rootDepth;
      const span = {
        start,
        end,
        depth,
        complete: true,
        tooDeep: false,
        mismatched,
        children,
        dropped,
        openAtEnd: [],
      };
      if (visit(span)) break;
    } else if (summary.prose.length < PROSE_SAMPLES) {
      summary.prose.push(start);
    }
    start = openers.next(end);
  }
  return summary;
}
