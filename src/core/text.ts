/**
 * Text helpers every layer shares: the one fence and the one inline code span
 * for untrusted text in markdown and prompts, and the one text cutter. Both are linear and safe on
 * hostile input (megabytes of backticks, emoji at the cut).
 */

/** The longest run of `char` in `text` (a loop: a spread over 10⁵ runs would overflow the stack). */
export function longestRun(text: string, char: string): number {
  let longest = 0;
  let current = 0;
  for (const ch of text) {
    current = ch === char ? current + 1 : 0;
    if (current > longest) longest = current;
  }
  return longest;
}

/**
 * A fenced code block the text cannot close: the fence is longer than any
 * run of backticks inside (at least three). Line endings become `\n` and
 * trailing newlines are dropped; `info` follows the opening fence.
 */
export function fence(text: string, info = ''): string {
  const body = text.replace(/\r\n?/g, '\n').replace(/\n+$/, '');
  const marker = '`'.repeat(Math.max(3, longestRun(body, '`') + 1));
  return `${marker}${info}\n${body}\n${marker}`;
}

/** An inline code span that the text cannot break out of; newlines become spaces. */
export function inlineCode(text: string): string {
  const body = text.replace(/\s*[\r\n]+\s*/g, ' ');
  const marker = '`'.repeat(longestRun(body, '`') + 1);
  const pad = body.startsWith('`') || body.endsWith('`') ? ' ' : '';
  return `${marker}${pad}${body}${pad}${marker}`;
}

/** Which part of a long text a cut keeps. */
export type CutKeep = 'start' | 'end' | 'both';

export interface CutOptions {
  /** `start` (default): the beginning; `end`: the end; `both`: a quarter from the start, the rest from the end. */
  keep?: CutKeep;
  /** What marks the cut, given how many characters were cut. */
  marker?: (cut: number) => string;
}

const MARKERS: Record<CutKeep, (cut: number) => string> = {
  start: () => '…',
  end: (cut) => `…(${cut} characters cut)\n`,
  both: (cut) => `\n…(${cut} characters cut)…\n`,
};

const isHigh = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLow = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/** `end` moved back when it would split a surrogate pair. */
function headEnd(text: string, end: number): number {
  return end > 0 && isHigh(text.charCodeAt(end - 1)) ? end - 1 : end;
}

/** `start` moved on when it would split a surrogate pair. */
function tailStart(text: string, start: number): number {
  return start < text.length && isLow(text.charCodeAt(start)) ? start + 1 : start;
}

/**
 * The one text cutter: `text` in at most `max` characters, marker included
 * (unless `max` is smaller than the marker), the cut marked and never inside
 * a surrogate pair. A text that fits is returned as it is.
 */
export function cutText(text: string, max: number, options: CutOptions = {}): string {
  if (text.length <= max) return text;
  const keep = options.keep ?? 'start';
  const marker = options.marker ?? MARKERS[keep];
  const budget = Math.max(0, max - marker(text.length).length);
  const headChars = keep === 'start' ? budget : keep === 'both' ? Math.floor(budget / 4) : 0;
  const head = headEnd(text, headChars);
  const tail = tailStart(text, text.length - (budget - headChars));
  const cut = tail - head;
  return `${text.slice(0, head)}${marker(cut)}${text.slice(tail)}`;
}
