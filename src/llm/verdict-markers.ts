/**
 * Finds verdict markers such as `最終判定: FAIL` or `**Verdict**: PASS` in a
 * review, line by line, without regular expressions over the whole text.
 *
 * A marker is a label at the start of a line (after list, heading, quote or
 * emphasis marks), closed by a colon (ASCII or full-width) or by emphasis
 * (`**結果** PASS`), followed by a verdict word. A label that is the tail of
 * a longer word (`品質ゲート総合判定: PASS`) or the head of one
 * (`判定基準: PASS`, `Results: PASS`) is not a marker, and a line that lists
 * the choices (`判定: PASS / FAIL`) decides nothing.
 */

export type Verdict = 'PASS' | 'FAIL' | 'PASS_WITH_SUGGESTIONS';

export interface MarkerLevel {
  /** The name reported in `marker` (the seed's spelling). */
  name: string;
  /** Labels of this level, lower case. */
  labels: readonly string[];
}

/** Priority order of seed 004 FR-2, with English equivalents at the level they translate. */
export const MARKER_LEVELS: readonly MarkerLevel[] = [
  {
    name: '最終判定',
    labels: ['最終判定', 'final decision', 'final verdict', 'final judgment', 'final judgement'],
  },
  { name: '判定結果', labels: ['判定結果', 'verdict'] },
  { name: '判定', labels: ['判定', 'judgment', 'judgement', 'determination'] },
  { name: '**結果**', labels: ['結果', 'result'] },
  { name: 'DECISION', labels: ['decision'] },
];

export interface MarkerHit {
  level: number;
  verdict: Verdict;
  /** Offset of the line in the text. */
  offset: number;
}

/** Longest label first, so that `判定結果` is not read as `判定`. */
const LABELS = MARKER_LEVELS.flatMap((level, index) =>
  level.labels.map((label) => ({ label, codes: codesOf(label), level: index })),
).sort((a, b) => b.label.length - a.label.length);

/** How far into a line decoration may reach before the label. */
const MAX_LEAD = 24;
/** How much decoration may sit between the separator and the verdict word. */
const MAX_GAP = 12;

/**
 * The best marker per level: for each level, the last line in the text
 * where it decides. Returns one entry per level (undefined when absent).
 */
export function findMarkers(text: string): (MarkerHit | undefined)[] {
  const best: (MarkerHit | undefined)[] = MARKER_LEVELS.map(() => undefined);
  let lineStart = 0;
  while (lineStart <= text.length) {
    let lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd === -1) lineEnd = text.length;
    const hit = markerOnLine(text, lineStart, lineEnd);
    if (hit) best[hit.level] = hit;
    lineStart = lineEnd + 1;
  }
  return best;
}

function markerOnLine(text: string, start: number, end: number): MarkerHit | undefined {
  let i = skipLead(text, start, end);
  if (i >= end) return undefined;
  const found = labelAt(text, i, end);
  if (!found) return undefined;
  i += found.label.length;
  // After the label: emphasis closers, then a colon; the colon may be left out after emphasis.
  const afterLabel = i;
  i = skipWhile(text, i, end, isCloser);
  const emphasised = i > afterLabel;
  i = skipWhile(text, i, end, isSpace);
  if (isColon(text.charCodeAt(i))) i++;
  else if (!emphasised) return undefined;
  i = skipGap(text, i, end);
  const word = verdictAt(text, i, end);
  if (!word) return undefined;
  if (listsChoices(text, i + word.length, end)) return undefined;
  return { level: found.level, verdict: word.verdict, offset: start };
}

/** Skips list bullets, numbers, heading and quote marks, emphasis and spaces at the start of a line. */
function skipLead(text: string, i: number, end: number): number {
  const limit = Math.min(end, i + MAX_LEAD);
  while (i < limit) {
    const c = text.charCodeAt(i);
    if (isSpace(c) || isEmphasis(c) || isLeadMark(c)) {
      i++;
    } else if (isDigit(c)) {
      let j = i;
      while (j < limit && isDigit(text.charCodeAt(j))) j++;
      const next = text.charCodeAt(j);
      if (next !== 0x2e && next !== 0x29) return i; // "1." or "1)"
      i = j + 1;
    } else {
      return i;
    }
  }
  return i;
}

function labelAt(text: string, i: number, end: number) {
  for (const entry of LABELS) {
    const stop = i + entry.label.length;
    if (stop > end || !matchesAt(text, i, entry.codes)) continue;
    // The label must end the word: `Results`, `判定基準` are other words.
    if (continuesWord(text.charCodeAt(stop), entry.label)) continue;
    return entry;
  }
  return undefined;
}

function continuesWord(c: number, label: string): boolean {
  if (Number.isNaN(c)) return false;
  if (isAsciiWordChar(label.charCodeAt(label.length - 1))) return isAsciiWordChar(c);
  return isCjkWordChar(c);
}

/** Spaces, emphasis, quotes, brackets and emoji between the separator and the word. */
function skipGap(text: string, i: number, end: number): number {
  const limit = Math.min(end, i + MAX_GAP);
  while (i < limit) {
    const c = text.charCodeAt(i);
    if (isAsciiWordChar(c) || isCjkWordChar(c)) return i;
    i++;
  }
  return i;
}

const WORDS: readonly { verdict: Verdict; parts: readonly number[][] }[] = [
  { verdict: 'PASS_WITH_SUGGESTIONS', parts: ['pass', 'with', 'suggestions'].map(codesOf) },
  { verdict: 'PASS', parts: [codesOf('pass')] },
  { verdict: 'FAIL', parts: [codesOf('fail')] },
];

/** A verdict word at `i` (case-insensitive; `_`, `-` or a space between the parts of the long one). */
function verdictAt(
  text: string,
  i: number,
  end: number,
): { verdict: Verdict; length: number } | undefined {
  for (const word of WORDS) {
    let j = i;
    let matched = true;
    for (const [index, part] of word.parts.entries()) {
      if (index > 0) {
        const sep = text.charCodeAt(j);
        if (sep !== 0x5f && sep !== 0x2d && sep !== 0x20) {
          matched = false;
          break;
        }
        j++;
      }
      if (j + part.length > end || !matchesAt(text, j, part)) {
        matched = false;
        break;
      }
      j += part.length;
    }
    // `PASS_WITH_SUGGESTIONS` must never be read as `PASS`: the word has to end here.
    if (matched && !isAsciiWordChar(text.charCodeAt(j)))
      return { verdict: word.verdict, length: j - i };
  }
  return undefined;
}

/** `PASS / FAIL`, `PASS | FAIL`, `PASS or FAIL`: a template listing the choices. */
function listsChoices(text: string, i: number, end: number): boolean {
  i = skipWhile(text, i, end, (c) => isSpace(c) || isEmphasis(c));
  const c = text.charCodeAt(i);
  if (c === 0x2f || c === 0x7c || c === 0xff0f || c === 0xff5c) return true; // / | ／ ｜
  return matchesAt(text, i, OR);
}

const OR = codesOf('or ');

function codesOf(label: string): number[] {
  return [...label].map((ch) => ch.charCodeAt(0));
}

/** Whether `codes` (lower case) appear at `i`, ignoring the case of ASCII letters. */
function matchesAt(text: string, i: number, codes: readonly number[]): boolean {
  for (let k = 0; k < codes.length; k++) {
    let c = text.charCodeAt(i + k);
    if (c >= 0x41 && c <= 0x5a) c |= 0x20;
    if (c !== codes[k]) return false;
  }
  return true;
}

function skipWhile(text: string, i: number, end: number, test: (c: number) => boolean): number {
  while (i < end && test(text.charCodeAt(i))) i++;
  return i;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0d || c === 0x3000;
}

function isEmphasis(c: number): boolean {
  return c === 0x2a || c === 0x5f || c === 0x7e || c === 0x60; // * _ ~ `
}

/** Emphasis or a closing bracket after a label: `**判定**`, `【判定】`, `[Verdict]`. */
function isCloser(c: number): boolean {
  return isEmphasis(c) || c === 0x3011 || c === 0x5d;
}

/** `-`, `+`, `#`, `>`, `•`, `・`, `【`, `[`. */
function isLeadMark(c: number): boolean {
  return (
    c === 0x2d ||
    c === 0x2b ||
    c === 0x23 ||
    c === 0x3e ||
    c === 0x2022 ||
    c === 0x30fb ||
    c === 0x3010 ||
    c === 0x5b
  );
}

function isColon(c: number): boolean {
  return c === 0x3a || c === 0xff1a;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isAsciiWordChar(c: number): boolean {
  return (
    (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f
  );
}

/** Kanji, hiragana and katakana: characters that continue a Japanese word. */
function isCjkWordChar(c: number): boolean {
  return (
    (c >= 0x3041 && c <= 0x30ff) || (c >= 0x3400 && c <= 0x9fff) || (c >= 0xf900 && c <= 0xfaff)
  );
}
