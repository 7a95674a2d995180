/**
 * Whether a bracket starts something shaped like JSON: cheap, bounded
 * look-ahead used by the scan to tell data from prose in brackets.
 */

const OPEN_OBJECT = 0x7b; // {
const CLOSE_OBJECT = 0x7d; // }
const QUOTE = 0x22; // "

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

const VALUE_STARTS = new Uint8Array(128);
for (const ch of '"\'{[]-0123456789') VALUE_STARTS[ch.charCodeAt(0)] = 1;

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
  if (next < 128 && VALUE_STARTS[next] === 1) return true;
  if (next === 0x74) return startsWithWord(text, i, 'true');
  if (next === 0x66) return startsWithWord(text, i, 'false');
  return next === 0x6e && startsWithWord(text, i, 'null');
}

function startsWithWord(text: string, i: number, word: string): boolean {
  return text.startsWith(word, i) && !isIdentPart(text.charCodeAt(i + word.length));
}
