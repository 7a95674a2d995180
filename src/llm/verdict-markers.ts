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

/** The markers in priority order, with English equivalents at the level they translate. */
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

/** ASCII character classes. */
const SPACE = 1;
const EMPHASIS = 2;
const LEAD = 4;
const CLOSER = 8;
const WORD = 16;
const DIGIT = 32;
const ASCII = new Uint8Array(128);
for (const ch of ' \t\r') ASCII[ch.charCodeAt(0)]! |= SPACE;
for (const ch of '*_~`') ASCII[ch.charCodeAt(0)]! |= EMPHASIS | LEAD | CLOSER;
for (const ch of '-+#>[') ASCII[ch.charCodeAt(0)]! |= LEAD;
ASCII[0x5d]! |= CLOSER; // ]
for (let c = 0x30; c <= 0x39; c++) ASCII[c]! |= WORD | DIGIT;
for (let c = 0x41; c <= 0x5a; c++) ASCII[c]! |= WORD;
for (let c = 0x61; c <= 0x7a; c++) ASCII[c]! |= WORD;
ASCII[0x5f]! |= WORD; // _

function is(c: number, kind: number): boolean {
  return c < 128 && (ASCII[c]! & kind) !== 0;
}

function isSpace(c: number): boolean {
  return is(c, SPACE) || c === 0x3000;
}

function isAsciiWordChar(c: number): boolean {
  return is(c, WORD);
}

/** Kanji, hiragana and katakana: characters that continue a Japanese word. */
function isCjkWordChar(c: number): boolean {
  return (
    (c >= 0x3041 && c <= 0x30ff) || (c >= 0x3400 && c <= 0x9fff) || (c >= 0xf900 && c <= 0xfaff)
  );
}

interface Label {
  codes: readonly number[];
  level: number;
  /** Whether the label ends in an ASCII letter (then an ASCII letter may not follow it). */
  ascii: boolean;
}

/** Labels by their first (lower-case) character, longest first so `判定結果` is not read as `判定`. */
const LABELS_BY_FIRST = new Map<number, Label[]>();
for (const [level, { labels }] of MARKER_LEVELS.entries()) {
  for (const label of labels) {
    const codes = codesOf(label);
    const entry = { codes, level, ascii: isAsciiWordChar(codes[codes.length - 1]!) };
    const list = LABELS_BY_FIRST.get(codes[0]!) ?? [];
    list.push(entry);
    list.sort((a, b) => b.codes.length - a.codes.length);
    LABELS_BY_FIRST.set(codes[0]!, list);
  }
}

/**
 * For each character that starts a label, 1 + the index of its labels in
 * LABEL_LISTS; 0 otherwise. Most lines are dismissed with one look-up.
 */
const LABEL_FIRST = new Uint8Array(0x10000);
const LABEL_LISTS: Label[][] = [];
for (const [first, list] of LABELS_BY_FIRST) {
  LABEL_LISTS.push(list);
  LABEL_FIRST[first] = LABEL_LISTS.length;
}

/**
 * For each character, the highest-priority level (lowest number) a marker
 * line starting with it can have: 0 for decoration that may come before any
 * label, the best level of the labels it starts, `NO_MARKER` otherwise. A
 * line is dismissed with one look-up when this is not above what was found.
 */
const NO_MARKER = 0xff;
const START_LEVEL = new Uint8Array(0x10000).fill(NO_MARKER);
for (let c = 0; c < 128; c++) if (is(c, LEAD | SPACE | DIGIT)) START_LEVEL[c] = 0;
for (const c of [0x3000, 0x2022, 0x30fb, 0x3010]) START_LEVEL[c] = 0;
for (const [first, list] of LABELS_BY_FIRST) {
  const best = Math.min(...list.map((label) => label.level));
  START_LEVEL[first] = best;
  if (first >= 0x61 && first <= 0x7a) START_LEVEL[first - 0x20] = best;
}

/** How far into a line decoration may reach before the label. */
const MAX_LEAD = 24;
/** How much decoration may sit between the separator and the verdict word. */
const MAX_GAP = 12;

const VERDICTS: readonly Verdict[] = ['PASS', 'FAIL', 'PASS_WITH_SUGGESTIONS'];

/**
 * The best marker per level: for each level, the last line in the text
 * where it decides. Returns one entry per level (undefined when absent).
 */
export function findMarkers(text: string): (MarkerHit | undefined)[] {
  const lines = scanMarkers(text, false);
  return MARKER_LEVELS.map((_, level) => lines.hit(level));
}

/**
 * The marker that decides a review: the last line of the highest level
 * present (what `findMarkers` finds first), or undefined. Once a level has
 * been found, lines of lower levels are dismissed at their label.
 */
export function decidingMarker(text: string): MarkerHit | undefined {
  const lines = scanMarkers(text, true);
  for (let level = 0; level < MARKER_LEVELS.length; level++) {
    const hit = lines.hit(level);
    if (hit) return hit;
  }
  return undefined;
}

/** The last marker line of each level: offsets (-1 when none) and verdicts, without allocating per line. */
class MarkerLines {
  readonly offsets = new Int32Array(MARKER_LEVELS.length).fill(-1);
  readonly verdicts = new Uint8Array(MARKER_LEVELS.length);

  hit(level: number): MarkerHit | undefined {
    const offset = this.offsets[level]!;
    if (offset < 0) return undefined;
    return { level, verdict: VERDICTS[this.verdicts[level]!]!, offset };
  }
}

const NEWLINE = 0x0a;

/**
 * Reads the marker lines from the last line back, so the first marker found
 * at a level is the last line of that level. With `decidingOnly`, once a
 * level is found only higher-priority levels still count: the lines of that
 * level and below are dismissed at their first character or label, and a
 * top-level marker ends the search. One look-up dismisses a line whose first
 * character cannot start a marker that still counts; short lines are walked
 * by hand and long ones searched with `lastIndexOf`, never before the first
 * newline (found forward, which is faster).
 */
function scanMarkers(text: string, decidingOnly: boolean): MarkerLines {
  const lines = new MarkerLines();
  const { offsets, verdicts } = lines;
  const first = text.indexOf('\n');
  let below = MARKER_LEVELS.length;
  let end = text.length;
  for (;;) {
    const newline = lastNewline(text, end, first);
    const start = newline + 1;
    if (start < end && START_LEVEL[text.charCodeAt(start)]! < below) {
      const hit = markerOnLine(text, start, end, below);
      if (hit >= 0 && offsets[hit >> 2]! < 0) {
        const level = hit >> 2;
        offsets[level] = start;
        verdicts[level] = hit & 3;
        if (decidingOnly) below = level;
        if (below === 0) break;
      }
    }
    if (newline < 0) break;
    end = newline;
  }
  return lines;
}

/** How far back a newline is looked for by hand before `lastIndexOf` takes over. */
const SHORT_LINE = 24;

/** Position of the last `\n` before `end`, or -1; `first` is the text's first `\n`. */
function lastNewline(text: string, end: number, first: number): number {
  if (end <= first || first < 0) return -1;
  const stop = end - SHORT_LINE > first ? end - SHORT_LINE : first;
  for (let i = end - 1; i >= stop; i--) if (text.charCodeAt(i) === NEWLINE) return i;
  return text.lastIndexOf('\n', stop - 1);
}

/** The marker on a line whose level is below `below`, as `level << 2 | verdict index`, or -1. */
function markerOnLine(text: string, start: number, end: number, below: number): number {
  let i = skipLead(text, start, end);
  if (i >= end) return -1;
  const label = labelAt(text, i, end);
  if (!label || label.level >= below) return -1;
  i += label.codes.length;
  // After the label: emphasis or a bracket closing it, then a colon; no colon needed after a closer.
  const afterLabel = i;
  while (i < end && (is(text.charCodeAt(i), CLOSER) || text.charCodeAt(i) === 0x3011)) i++;
  const closed = i > afterLabel;
  while (i < end && isSpace(text.charCodeAt(i))) i++;
  const colon = text.charCodeAt(i);
  if (colon === 0x3a || colon === 0xff1a) i++;
  else if (!closed) return -1;
  i = skipGap(text, i, end);
  const word = verdictAt(text, i, end);
  if (word < 0) return -1;
  if (listsChoices(text, i + (word >> 2), end)) return -1;
  return (label.level << 2) | (word & 3);
}

/** Skips list bullets (`-`, `•`, `・`, `1.`), heading and quote marks, emphasis and spaces. */
function skipLead(text: string, i: number, end: number): number {
  const limit = Math.min(end, i + MAX_LEAD);
  while (i < limit) {
    const c = text.charCodeAt(i);
    if (is(c, LEAD | SPACE) || c === 0x3000 || c === 0x2022 || c === 0x30fb || c === 0x3010) {
      i++;
    } else if (is(c, DIGIT)) {
      let j = i + 1;
      while (j < limit && is(text.charCodeAt(j), DIGIT)) j++;
      const next = text.charCodeAt(j);
      if (next !== 0x2e && next !== 0x29) return i; // "1." or "1)"
      i = j + 1;
    } else {
      return i;
    }
  }
  return i;
}

function labelAt(text: string, i: number, end: number): Label | undefined {
  const slot = LABEL_FIRST[lower(text.charCodeAt(i))]!;
  if (slot === 0) return undefined;
  for (const entry of LABEL_LISTS[slot - 1]!) {
    const stop = i + entry.codes.length;
    if (stop > end || !matchesAt(text, i, entry.codes)) continue;
    // The label must end the word: `Results`, `判定基準` are other words.
    const next = text.charCodeAt(stop);
    if (entry.ascii ? isAsciiWordChar(next) : isCjkWordChar(next)) continue;
    return entry;
  }
  return undefined;
}

function lower(c: number): number {
  return c >= 0x41 && c <= 0x5a ? c | 0x20 : c;
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

const PASS = codesOf('pass');
const FAIL = codesOf('fail');
const WITH = codesOf('with');
const SUGGESTIONS = codesOf('suggestions');
const OR = codesOf('or ');
const LONG_PARTS = [WITH, SUGGESTIONS];

/**
 * A verdict word at `i` as `length << 2 | verdict index`, or -1: PASS,
 * FAIL, or PASS_WITH_SUGGESTIONS (case-insensitive, with `_`, `-` or a
 * space between its parts). The word has to end there, so that
 * `PASS_WITH_SUGGESTIONS` is never read as `PASS`.
 */
function verdictAt(text: string, i: number, end: number): number {
  if (i + 4 > end) return -1;
  if (matchesAt(text, i, FAIL)) return isAsciiWordChar(text.charCodeAt(i + 4)) ? -1 : (4 << 2) | 1;
  if (!matchesAt(text, i, PASS)) return -1;
  const long = longFormEnd(text, i + 4, end);
  if (long !== -1) return ((long - i) << 2) | 2;
  return isAsciiWordChar(text.charCodeAt(i + 4)) ? -1 : (4 << 2) | 0;
}

/** Where `_WITH_SUGGESTIONS` (any joiner, any case) ending a word ends, or -1. */
function longFormEnd(text: string, j: number, end: number): number {
  for (const part of LONG_PARTS) {
    if (!isJoiner(text.charCodeAt(j)) || j + 1 + part.length > end) return -1;
    if (!matchesAt(text, j + 1, part)) return -1;
    j += 1 + part.length;
  }
  return isAsciiWordChar(text.charCodeAt(j)) ? -1 : j;
}

function isJoiner(c: number): boolean {
  return c === 0x5f || c === 0x2d || c === 0x20;
}

/** `PASS / FAIL`, `PASS | FAIL`, `PASS or FAIL`: a template listing the choices. */
function listsChoices(text: string, i: number, end: number): boolean {
  while (i < end && is(text.charCodeAt(i), SPACE | EMPHASIS)) i++;
  const c = text.charCodeAt(i);
  if (c === 0x2f || c === 0x7c || c === 0xff0f || c === 0xff5c) return true; // / | ／ ｜
  return matchesAt(text, i, OR);
}

function codesOf(label: string): number[] {
  return [...label].map((ch) => ch.charCodeAt(0));
}

/** Whether `codes` (lower case) appear at `i`, ignoring the case of ASCII letters. */
function matchesAt(text: string, i: number, codes: readonly number[]): boolean {
  for (let k = 0; k < codes.length; k++) {
    if (lower(text.charCodeAt(i + k)) !== codes[k]) return false;
  }
  return true;
}
