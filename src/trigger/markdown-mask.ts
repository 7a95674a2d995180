/**
 * Finds the lines of a GitLab comment that are ordinary prose, so a command
 * written inside code or a quotation is never mistaken for a real one (A1).
 *
 * `proseLines(text)` returns the comment's lines with everything that is not
 * prose masked: fenced code blocks (``` and ~~~), GitLab multi-line
 * blockquotes (>>>), `>` quotes, HTML comments and inline code spans. Masked
 * characters become `x`, so positions and line numbers stay the same and a
 * masked line can never start with a command prefix. Indented code blocks need
 * no masking: a command must start within three spaces of the line start.
 */
const MASK = 'x';

interface Fence {
  char: '`' | '~';
  length: number;
}

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const QUOTE = /^ {0,3}>/;
const GITLAB_QUOTE_FENCE = /^ {0,3}>>>\s*$/;

function maskAll(line: string): string {
  return MASK.repeat(line.length);
}

function closesFence(line: string, fence: Fence): boolean {
  const match = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line);
  return match !== null && match[1]![0] === fence.char && match[1]!.length >= fence.length;
}

/** Masks block-level non-prose: fences, quotes; returns one entry per line. */
function maskBlocks(lines: readonly string[]): string[] {
  const out: string[] = [];
  let fence: Fence | undefined;
  let inGitlabQuote = false;
  for (const line of lines) {
    if (fence) {
      out.push(maskAll(line));
      if (closesFence(line, fence)) fence = undefined;
      continue;
    }
    if (inGitlabQuote) {
      out.push(maskAll(line));
      if (GITLAB_QUOTE_FENCE.test(line)) inGitlabQuote = false;
      continue;
    }
    if (GITLAB_QUOTE_FENCE.test(line)) {
      inGitlabQuote = true;
      out.push(maskAll(line));
      continue;
    }
    const open = FENCE_OPEN.exec(line);
    // a backtick fence's info string may not contain backticks (CommonMark)
    if (open && !(open[1]![0] === '`' && open[2]!.includes('`'))) {
      fence = { char: open[1]![0] as '`' | '~', length: open[1]!.length };
      out.push(maskAll(line));
      continue;
    }
    out.push(QUOTE.test(line) ? maskAll(line) : line);
  }
  return out;
}

function maskRange(chars: string[], from: number, to: number): void {
  for (let i = from; i < to; i++) if (chars[i] !== '\n') chars[i] = MASK;
}

/** Masks `<!-- … -->` comments and inline code spans (which may span lines of a paragraph). */
function maskInline(paragraph: string): string {
  if (!paragraph.includes('`') && !paragraph.includes('<!--')) return paragraph;
  const units = paragraph.split('');
  for (const match of paragraph.matchAll(/<!--[\s\S]*?(?:-->|$)/g)) {
    maskRange(units, match.index, match.index + match[0].length);
  }
  maskCodeSpans(units, backtickRuns(units));
  return units.join('');
}

interface Run {
  start: number;
  length: number;
}

function backtickRuns(units: readonly string[]): Run[] {
  const runs: Run[] = [];
  for (let i = 0; i < units.length;) {
    if (units[i] !== '`') {
      i++;
      continue;
    }
    let length = 0;
    while (units[i + length] === '`') length++;
    runs.push({ start: i, length });
    i += length;
  }
  return runs;
}

/**
 * A run of n backticks opens a code span closed by the next run of exactly n
 * (CommonMark); an opener without a closer is literal text. The runs of each
 * length are looked up through a forward-only cursor, so a comment full of
 * unmatched runs of every length costs linear time, not quadratic.
 */
function maskCodeSpans(units: string[], runs: readonly Run[]): void {
  const byLength = new Map<number, number[]>();
  runs.forEach((run, index) => {
    const list = byLength.get(run.length);
    if (list) list.push(index);
    else byLength.set(run.length, [index]);
  });
  const cursor = new Map<number, number>();
  for (let k = 0; k < runs.length;) {
    const run = runs[k]!;
    const list = byLength.get(run.length)!;
    let next = cursor.get(run.length) ?? 0;
    while (next < list.length && list[next]! <= k) next++;
    cursor.set(run.length, next);
    if (next === list.length) {
      k++; // an unmatched run is literal text
      continue;
    }
    const close = runs[list[next]!]!;
    maskRange(units, run.start, close.start + close.length);
    k = list[next]! + 1;
  }
}

/** The comment's lines (split on \n, \r\n or \r) with non-prose masked. */
export function proseLines(text: string): { original: string[]; prose: string[] } {
  const original = text.split(/\r\n|\r|\n/);
  const blocks = maskBlocks(original);
  // inline spans cannot cross a blank line, so mask paragraph by paragraph
  const prose: string[] = [];
  let paragraph: string[] = [];
  const flush = () => {
    // one push per line: spreading a huge paragraph into push() overflows the stack
    if (paragraph.length > 0)
      for (const line of maskInline(paragraph.join('\n')).split('\n')) prose.push(line);
    paragraph = [];
  };
  for (const line of blocks) {
    if (line.trim() === '') {
      flush();
      prose.push(line);
    } else {
      paragraph.push(line);
    }
  }
  flush();
  return { original, prose };
}
