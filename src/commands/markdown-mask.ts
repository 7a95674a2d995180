import MarkdownIt from 'markdown-it';

/**
 * Finds the lines of a GitLab comment that are ordinary visible prose, so a
 * command written where GitLab shows no text is never mistaken for a real one
 * (inside code, a quotation, HTML, a link title, an image's alt text, an HTML
 * attribute, front matter or a collapsed `<details>` body).
 *
 * The block structure comes from a CommonMark parser (markdown-it, block
 * rules): only lines of paragraphs and headings outside block quotes and
 * `<details>` bodies stay visible, and front matter at the very start of the
 * comment (`---`, `+++` or `;;;` fences, which GitLab renders as a code block)
 * is hidden. A paragraph holding a line that starts with the command prefix is
 * then parsed inline (markdown-it again), and only lines that start with the
 * prefix in a text token are visible command lines: a prefix that opens a line
 * of a link title, an alt text or an HTML attribute is none. Inside visible
 * paragraphs, inline code spans and HTML comments are masked by the linear
 * scans below, and GitLab's own multi-line block quotes (`>>>` … `>>>`) on
 * top, outside code. Masked characters become `x`, so positions and line
 * numbers stay the same and a masked line can never start with a command
 * prefix.
 */
const MASK = 'x';
const GITLAB_QUOTE_FENCE = /^ {0,3}>>>\s*$/;

const blockParser = new MarkdownIt('commonmark');
blockParser.core.ruler.disable(['inline', 'text_join']);
const inlineParser = new MarkdownIt('commonmark');

interface Paragraph {
  /** 0-based [start, end) lines. */
  lines: [number, number];
}

interface Blocks {
  /** Visible paragraphs and headings. */
  prose: Paragraph[];
  /** 0-based lines of fenced or indented code. */
  code: Set<number>;
}

const DETAILS_OPEN = /<details(?=[\s>/])/gi;
const DETAILS_CLOSE = /<\/details\s*>/gi;

function countOf(text: string, pattern: RegExp): number {
  return text.match(pattern)?.length ?? 0;
}

function blocksOf(source: string): Blocks {
  const prose: Paragraph[] = [];
  const code = new Set<number>();
  let quoteDepth = 0;
  // a `<details>` body is collapsed: GitLab shows its summary only
  let detailsDepth = 0;
  for (const token of blockParser.parse(source, {})) {
    if (token.type === 'blockquote_open') quoteDepth++;
    else if (token.type === 'blockquote_close') quoteDepth--;
    else if (token.type === 'html_block') {
      const opened = countOf(token.content, DETAILS_OPEN);
      const closed = countOf(token.content, DETAILS_CLOSE);
      detailsDepth = Math.max(0, detailsDepth + opened - closed);
    } else if ((token.type === 'fence' || token.type === 'code_block') && token.map) {
      for (let l = token.map[0]; l < token.map[1]; l++) code.add(l);
    } else if (
      quoteDepth === 0 &&
      detailsDepth === 0 &&
      (token.type === 'paragraph_open' || token.type === 'heading_open') &&
      token.map
    ) {
      prose.push({ lines: [token.map[0], token.map[1]] });
    }
  }
  return { prose, code };
}

/**
 * GitLab renders front matter at the very start of a comment as a code block:
 * a `---`, `+++` or `;;;` line (a language may follow `---`), up to the same
 * fence. The number of its lines, 0 when there is none.
 */
function frontMatterLines(lines: readonly string[]): number {
  const open = /^(---|\+\+\+|;;;)([a-z]*)\s*$/.exec(lines[0] ?? '');
  if (!open) return 0;
  const fence = open[1]!;
  for (let l = 1; l < lines.length; l++) {
    if (lines[l]!.trimEnd() === fence) return l + 1;
  }
  return 0;
}

function collapsed(text: string): string {
  return text.trim().replace(/\s+/g, ' ');
}

/**
 * The visible lines of a paragraph that start with the command prefix, as
 * text (whitespace collapsed): the paragraph is parsed inline, and a line is
 * one when a text token starts it. Code spans, HTML, images and links count
 * as other text, so `[/agent x](…)` starts no command line.
 */
function visibleCommandLines(content: string, startsCommand: RegExp): string[] {
  const found: string[] = [];
  let line = '';
  let atStart = true;
  const endLine = () => {
    if (startsCommand.test(line)) found.push(collapsed(line));
    line = '';
    atStart = true;
  };
  for (const block of inlineParser.parseInline(content, {})) {
    for (const token of block.children ?? []) {
      if (token.type === 'softbreak' || token.type === 'hardbreak') endLine();
      else if (token.type === 'text') {
        if (atStart || line !== '') line += token.content;
        atStart = false;
      } else if (
        token.type === 'code_inline' ||
        token.type === 'html_inline' ||
        token.type === 'image' ||
        token.type === 'link_open'
      ) {
        line += MASK;
        atStart = false;
      }
    }
  }
  endLine();
  return found;
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

/**
 * How much of a comment is parsed inline, at most: a linear parse, but slow
 * on hostile markup (about 4 µs a character), so a delivery never holds the
 * bridge for long. Around a command line, the window of text parsed with it;
 * a link title or attribute longer than that is taken as text.
 */
const INLINE_WINDOW_CHARS = 16 * 1024;
const INLINE_BUDGET_CHARS = 128 * 1024;

/** A line's first `INLINE_WINDOW_CHARS` characters: enough to tell whether it starts a command. */
function lineStart(line: string): string {
  return line.slice(0, INLINE_WINDOW_CHARS);
}

/**
 * The text of lines [from, to) around line `at`: the start of that line, and
 * at most `INLINE_WINDOW_CHARS` characters on each side of it.
 */
function windowAround(lines: readonly string[], at: number, from: number, to: number): string {
  const before = lines.slice(from, at).join('\n');
  const after = lines.slice(at + 1, to).join('\n');
  return [
    ...(at > from ? [before.slice(-INLINE_WINDOW_CHARS)] : []),
    lineStart(lines[at]!),
    ...(at + 1 < to ? [after.slice(0, INLINE_WINDOW_CHARS)] : []),
  ].join('\n');
}

interface InlineBudget {
  left: number;
  /** A command line was found: later paragraphs are not parsed. */
  found: boolean;
}

/**
 * Unmasks the lines of a visible paragraph. Lines that start with the command
 * prefix keep it only when the inline parse shows them as command lines (when
 * none matches word for word, markup within the line, every such line does as
 * long as the paragraph shows one at all). Only the first paragraph with a
 * command line matters, so later ones keep such lines masked.
 */
function unmaskParagraph(
  paragraph: Paragraph,
  original: readonly string[],
  prose: string[],
  startsCommand: RegExp,
  budget: InlineBudget,
): void {
  const [start, end] = paragraph.lines;
  const masked = maskInline(original.slice(start, end).join('\n')).split('\n');
  const candidates = masked.flatMap((line, i) => (startsCommand.test(line) ? [i] : []));
  let refused = new Set(candidates);
  if (candidates.length > 0 && !budget.found) {
    const text = windowAround(original, start + candidates[0]!, start, end);
    if (text.length <= budget.left) {
      budget.left -= text.length;
      const shown = new Set(visibleCommandLines(text, startsCommand));
      const matching = new Set(
        candidates.filter((i) => shown.has(collapsed(lineStart(original[start + i]!)))),
      );
      if (matching.size > 0) refused = new Set(candidates.filter((i) => !matching.has(i)));
      else if (shown.size > 0) refused = new Set();
      budget.found = shown.size > 0;
    }
  }
  for (let l = start; l < end; l++) {
    prose[l] = refused.has(l - start) ? maskAll(original[l]!) : masked[l - start]!;
  }
}

/**
 * The comment's lines (split on \n, \r\n or \r) with non-prose masked.
 * `startsCommand` tests whether a line starts with the command prefix (within
 * three spaces): such lines stay unmasked only where GitLab shows them as text.
 */
export function proseLines(
  text: string,
  startsCommand: RegExp,
): { original: string[]; prose: string[] } {
  const original = text.split(/\r\n|\r|\n/);
  const hidden = frontMatterLines(original);
  const source = [...original.slice(0, hidden).map(() => ''), ...original.slice(hidden)];
  const { prose: paragraphs, code } = blocksOf(source.join('\n'));
  const prose = original.map(maskAll);
  const budget: InlineBudget = { left: INLINE_BUDGET_CHARS, found: false };
  for (const paragraph of paragraphs) {
    unmaskParagraph(paragraph, original, prose, startsCommand, budget);
  }
  let inGitlabQuote = false;
  original.forEach((line, l) => {
    const marker = !code.has(l) && GITLAB_QUOTE_FENCE.test(line);
    if (inGitlabQuote || marker) prose[l] = maskAll(line);
    if (marker) inGitlabQuote = !inGitlabQuote;
  });
  return { original, prose };
}
