/**
 * Where the next top-level span may start, for `scanJsonSpans`: the next
 * `{` (and `[` when arrays count), found by hand when it is near and with
 * `indexOf` when it is far, and runs of brackets that are plainly not JSON
 * passed in one tight loop.
 */

const OPEN_OBJECT = 0x7b; // {
const OPEN_ARRAY = 0x5b; // [

/**
 * Finds the next top-level opener. It remembers the next `{` and `[` it has
 * seen, so that a text with many of one and none of the other is not
 * searched to its end again and again.
 */
export class OpenerFinder {
  private brace: number;
  private bracket: number;
  private readonly objects: boolean;
  private readonly arrays: boolean;

  constructor(
    private readonly text: string,
    objects: boolean,
    arrays: boolean,
  ) {
    this.objects = objects;
    this.arrays = arrays;
    this.brace = objects ? -2 : -1;
    this.bracket = arrays ? -2 : -1;
  }

  /** Position of the next opener at or after `from`, or -1. */
  next(from: number): number {
    // Openers close together (`{a {a {a`) are found by hand: cheaper than a call to `indexOf`.
    const { text, objects, arrays } = this;
    const stop = Math.min(text.length, from + NEAR);
    for (let i = from; i < stop; i++) {
      const c = text.charCodeAt(i);
      if ((c === OPEN_OBJECT && objects) || (c === OPEN_ARRAY && arrays)) return i;
    }
    if (this.brace !== -1 && this.brace < stop) this.brace = text.indexOf('{', stop);
    if (this.bracket !== -1 && this.bracket < stop) this.bracket = text.indexOf('[', stop);
    if (this.brace === -1) return this.bracket;
    return this.bracket === -1 || this.brace < this.bracket ? this.brace : this.bracket;
  }
}

/** How far the next opener is looked for by hand before `indexOf` takes over. */
const NEAR = 16;

export function isOpener(c: number, arrays: boolean): boolean {
  return c === OPEN_OBJECT || (arrays && c === OPEN_ARRAY);
}

/**
 * Past a run of brackets that are plainly not JSON, in one tight loop: a
 * `{` right before another bracket (an object starts with a key), and `[`
 * when only objects are wanted. Returns where the run ends (`start` when
 * there is none): a run of ten million `{` costs one pass, not ten million
 * searches.
 */
export function skipOpenerRun(text: string, start: number, arrays: boolean): number {
  let i = start;
  for (;;) {
    const c = text.charCodeAt(i);
    if (c === OPEN_OBJECT) {
      const next = text.charCodeAt(i + 1);
      if (next !== OPEN_OBJECT && next !== OPEN_ARRAY) return i;
    } else if (c !== OPEN_ARRAY || arrays) {
      return i;
    }
    i++;
  }
}
