import MarkdownIt from 'markdown-it';

/**
 * Finds the lines of a GitLab comment that are ordinary prose, so a command
 * written inside code, a quotation or HTML is never mistaken for a real one
 * (A1, and the hidden forms of issue 19: an HTML comment spanning blank lines,
 * a fence inside a list item, a lazy continuation line of a `>` quote, a
 * `<pre>` block).
 *
 * The block structure comes from a CommonMark parser (markdown-it, block
 * rules only: its inline rules are not needed and cost time on hostile
 * input); only lines of paragraphs and headings outside block quotes stay
 * visible. Inside those, inline code spans and HTML comments are masked by the
 * linear scans below, and GitLab's own multi-line block quotes (`>>>` … `>>>`)
 * on top, outside code. Masked characters become `x`, so positions and line
 * numbers stay the same and a masked line can never start with a command
 * prefix.
 */
const MASK = 'x';
const GITLAB_QUOTE_FENCE = /^ {0,3}>>>\s*$/;

const blockParser = new MarkdownIt('commonmark');
blockParser.core.ruler.disable(['inline', 'text_join']);

interface Blocks {
  /** 0-based [start, end) line ranges of visible paragraphs and headings. */
  prose: Array<[number, number]>;
  /** 0-based lines of fenced or indented code. */
  code: Set<number>;
}

function blocksOf(source: string): Blocks {
  const prose: Array<[number, number]> = [];
  const code = new Set<number>();
  let quoteDepth = 0;
  for (const token of blockParser.parse(source, {})) {
    if (token.type === 'blockquote_open') quoteDepth++;
    else if (token.type === 'blockquote_close') quoteDepth--;
    else if ((token.type === 'fence' || token.type === 'code_block') && token.map) {
      for (let l = token.map[0]; l < token.map[1]; l++) code.add(l);
    } else if (
      quoteDepth === 0 &&
      (token.type === 'paragraph_open' || token.type === 'heading_open') &&
      token.map
    ) {
      prose.push([token.map[0], token.map[1]]);
    }
  }
  return { prose, code };
}

function maskAll(line: string): string {
  return MASK.repeat(line.length);
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
  const { prose: paragraphs, code } = blocksOf(original.join('\n'));
  const prose = original.map(maskAll);
  for (const [start, end] of paragraphs) {
    const masked = maskInline(original.slice(start, end).join('\n')).split('\n');
    for (let l = start; l < end; l++) prose[l] = masked[l - start]!;
  }
  let inGitlabQuote = false;
  original.forEach((line, l) => {
    const marker = !code.has(l) && GITLAB_QUOTE_FENCE.test(line);
    if (inGitlabQuote || marker) prose[l] = maskAll(line);
    if (marker) inGitlabQuote = !inGitlabQuote;
  });
  return { original, prose };
}
