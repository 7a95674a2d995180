/**
 * Where a JSON string ends: the first `"` after `from` that is not escaped,
 * i.e. not preceded by an odd run of backslashes. Part of the scan behind
 * `extractJson`.
 *
 * The first few characters are walked by hand (a key ends there, and a
 * call to `indexOf` costs more than that); after them, quotes are found
 * with `indexOf`, so long runs without one cost next to nothing; whether a quote is escaped is read from the backslashes just
 * before it. Where quotes come thick (`\"\"\"`), calling `indexOf` for
 * each would cost more than looking at the characters, so a short stretch
 * is walked by hand instead. Every character is looked at a bounded number
 * of times: linear in the length of the string, whatever its content.
 */

const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \

/** Quotes closer together than this make the search walk by hand for a while. */
const DENSE_GAP = 6;
/** How far a hand walk goes before `indexOf` takes over again. */
const WALK = 64;

/** How far a string is walked by hand before `indexOf` is called: keys and short values end sooner. */
const SHORT = 16;

/** Position of the quote ending the string whose content starts at `from`, or -1. */
export function stringEnd(text: string, from: number): number {
  const n = text.length;
  const short = from + SHORT < n ? from + SHORT : n;
  let i = from;
  for (; i < short; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) return i;
    if (c === BACKSLASH) i++;
  }
  // Parity (below) needs no knowledge of where the walk stopped.
  for (;;) {
    const quote = text.indexOf('"', i);
    if (quote === -1) return -1;
    // The run of backslashes before a quote starts after a character that
    // is not part of an escape (at worst the opening quote), so its parity
    // says whether the quote is escaped. A run is walked back at most once
    // more than forward (after a hand walk that ended inside it).
    let k = quote - 1;
    while (text.charCodeAt(k) === BACKSLASH) k--;
    if (((quote - k) & 1) === 1) return quote;
    const gap = quote - i;
    i = quote + 1;
    if (gap >= DENSE_GAP) continue;
    const stop = Math.min(n, i + WALK);
    while (i < stop) {
      const c = text.charCodeAt(i);
      if (c === BACKSLASH) i += 2;
      else if (c === QUOTE) return i;
      else i++;
    }
  }
}
