/**
 * The scan of one top-level span behind `scanJsonSpans` (json-scan.ts): one
 * pass over its characters that tracks the open brackets, keeps the maximal
 * closed spans inside it that start like JSON, and knows how deeply it nests.
 */

import { looksLikeJsonStart } from './json-start.ts';
import { stringEnd } from './json-string.ts';

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
  /** The scan left this span at `end` because it nests `MAX_SCAN_DEPTH` levels deep. */
  tooDeep: boolean;
  /** For an incomplete span: the text ended inside a string. */
  inString: boolean;
  /** A closer did not match its opener (`{ ... ]`). */
  mismatched: boolean;
  /** Maximal closed spans inside this one that start like JSON, by position. */
  children: readonly Span[];
  /** Such spans left out because there were more than `MAX_CHILDREN`. */
  dropped: number;
  /** For an incomplete span: the tracked openers still open at the end, outermost first. */
  openAtEnd: readonly number[];
}

/** At this many open brackets a span is cut off and the scan starts afresh (see above). */
export const MAX_SCAN_DEPTH = 1024;

/** Closed spans kept per top-level span (a broken span with more is adversarial). */
export const MAX_CHILDREN = 4096;

const OPEN_OBJECT = 0x7b; // {
const CLOSE_OBJECT = 0x7d; // }
const OPEN_ARRAY = 0x5b; // [
const CLOSE_ARRAY = 0x5d; // ]
const QUOTE = 0x22; // "

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

/** What a span scan returns when it does not end at a closer. */
export const END = -1;
export const TOO_DEEP = -2;
const FULL = -3;

/** The bookkeeping of one top-level span while it is scanned. */
export class RootScan {
  /** Open brackets: position (arrays as `~pos`), and the deepest level reached inside. */
  readonly opened = new Int32Array(MAX_SCAN_DEPTH);
  readonly deepest = new Int32Array(MAX_SCAN_DEPTH);
  readonly children: Span[] = [];
  /** Closed spans left out because `children` was full. */
  dropped = 0;
  /** Open brackets when the scan of the span ended. */
  depth = 0;
  mismatched = false;
  /** Set when the root closes: its nesting depth. */
  rootDepth = 0;
  /** The text ended inside a string. */
  inString = false;
  /** Where `scanCounting` resumes; after `TOO_DEEP`, the opener one level too deep. */
  at = 0;

  constructor(
    private readonly text: string,
    private readonly keepArrays: boolean,
  ) {}

  /**
   * Scans the span opened at `start`. Returns the index after its closer,
   * `END` when the text ends first, or `TOO_DEEP` when it nests too deeply.
   */
  run(text: string, start: number): number {
    const { opened, deepest, children } = this;
    if (children.length > 0) children.length = 0;
    opened[0] = text.charCodeAt(start) === OPEN_OBJECT ? start : ~start;
    deepest[0] = 1;
    this.depth = 1;
    this.mismatched = false;
    this.inString = false;
    this.dropped = 0;
    const result = this.scanKeeping(text, start + 1);
    return result === FULL ? this.scanCounting(text, this.at) : result;
  }

  /**
   * The hot loop while children are kept: state lives in locals, and a
   * closer costs a few typed-array reads unless it may be a child.
   * Returns as `run`, or `FULL` (resume at `this.at`) when `children` fills up.
   */
  private scanKeeping(text: string, from: number): number {
    const { opened, deepest } = this;
    let depth = this.depth;
    let mismatched = false;
    let result = END;
    const n = text.length;
    let i = from;
    for (; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c > CLOSE_OBJECT) continue;
      const kind = CLASS[c]!;
      if (kind === PLAIN) continue;
      if (kind === K_OPEN) {
        if (depth === MAX_SCAN_DEPTH) {
          result = TOO_DEEP;
          this.at = i;
          break;
        }
        opened[depth] = c === OPEN_OBJECT ? i : ~i;
        deepest[depth] = ++depth;
      } else if (kind === K_QUOTE) {
        i = stringEnd(text, i + 1);
        if (i === -1) {
          this.inString = true;
          break;
        }
      } else {
        const enc = opened[--depth]!;
        if (enc < 0 !== (c === CLOSE_ARRAY)) mismatched = true;
        const inner = deepest[depth]!;
        if (depth === 0) {
          this.rootDepth = inner;
          result = i + 1;
          break;
        }
        if (deepest[depth - 1]! < inner) deepest[depth - 1] = inner;
        if (this.keep(enc, i + 1, inner - depth)) {
          this.at = i + 1;
          result = FULL;
          break;
        }
      }
    }
    this.depth = depth;
    this.mismatched = mismatched;
    return result;
  }

  /**
   * The rest of a span once `children` is full: only the open brackets,
   * the depth reached and the closers left out are tracked.
   */
  private scanCounting(text: string, from: number): number {
    const { opened } = this;
    let depth = this.depth;
    let reached = this.reached();
    let mismatched = this.mismatched;
    let dropped = 0;
    let result = END;
    const n = text.length;
    for (let i = from; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c > CLOSE_OBJECT) continue;
      const kind = CLASS[c]!;
      if (kind === PLAIN) continue;
      if (kind === K_OPEN) {
        if (depth === MAX_SCAN_DEPTH) {
          result = TOO_DEEP;
          this.at = i;
          break;
        }
        opened[depth] = c === OPEN_OBJECT ? i : ~i;
        if (++depth > reached) reached = depth;
      } else if (kind === K_QUOTE) {
        i = stringEnd(text, i + 1);
        if (i === -1) {
          this.inString = true;
          break;
        }
      } else {
        const enc = opened[--depth]!;
        if (enc < 0 !== (c === CLOSE_ARRAY)) mismatched = true;
        if (depth === 0) {
          result = i + 1;
          break;
        }
        dropped++;
      }
    }
    // Open levels now all report the depth reached, as `openState` and `rootDepth` read it.
    for (let k = 0; k < depth; k++) this.deepest[k] = reached;
    this.rootDepth = reached;
    this.depth = depth;
    this.mismatched = mismatched;
    this.dropped = dropped;
    return result;
  }

  /** The deepest level reached so far: the open levels' own and their closed parts'. */
  private reached(): number {
    let reached = this.depth;
    for (let k = 0; k < this.depth; k++) reached = Math.max(reached, this.deepest[k]!);
    return reached;
  }

  /**
   * A span closed inside the root: keep it if it may be JSON, as the last
   * of the maximal ones so far (prose such as `{x}` keeps its parts instead).
   * Returns whether `children` is now full.
   */
  private keep(enc: number, end: number, depth: number): boolean {
    const children = this.children;
    const start = enc < 0 ? ~enc : enc;
    if ((enc >= 0 || this.keepArrays) && looksLikeJsonStart(this.text, start)) {
      while (children.length > 0 && children[children.length - 1]!.start > start) children.pop();
      children.push({ start, end, depth });
    }
    return children.length >= MAX_CHILDREN;
  }

  /** For a span cut off: the openers still open (outermost first) and the depth reached. */
  openState(): { openAtEnd: number[]; depth: number } {
    const openAtEnd: number[] = [];
    for (let k = 0; k < this.depth; k++) {
      const enc = this.opened[k]!;
      openAtEnd.push(enc < 0 ? ~enc : enc);
    }
    return { openAtEnd, depth: this.reached() };
  }
}
