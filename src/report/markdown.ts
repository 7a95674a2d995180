/**
 * Markdown helpers for everything mr-agent posts to GitLab.
 *
 * GitLab runs quick actions (`/merge`, `/approve`, `/close` …) found at the
 * start of a line in notes created through the API, as the note's author
 * (see docs/security.md). `escapeQuickActions` makes sure no line of a body starts with
 * `/`: in prose the slash gets a markdown backslash escape (renders as `/`);
 * inside code blocks, where a backslash would show, an invisible zero-width
 * space goes before it, so code stays readable.
 */
import { cutText } from '../core/text.ts';

/** GitLab's hard limit for a note body, in characters. */
export const GITLAB_NOTE_LIMIT = 1_000_000;
/** Where mr-agent truncates note bodies: well below the limit. */
export const NOTE_MAX_CHARS = 900_000;
/** Inserted before a `/` that starts a line inside code. */
export const ZERO_WIDTH_SPACE = '\u200B';

/**
 * Container markers before a line's content: indentation, blockquote `>`
 * markers and list markers (`-`, `*`, `+`, `1.`, `1)`), in any nesting.
 */
const CONTAINER_PREFIX = /^(?:[ \t]*(?:>|[-+*](?=[ \t])|\d{1,9}[.)](?=[ \t])))*[ \t]*/;
const FENCE_OPEN = /^(`{3,}|~{3,})(.*)$/;

interface Fence {
  char: string;
  length: number;
}

/** Tracks fenced code blocks line by line (CommonMark rules, loosely: containers are ignored). */
class FenceTracker {
  open: Fence | undefined;

  /** Feeds one line's content (container prefix removed); returns whether the line is code. */
  feed(content: string): boolean {
    if (this.open) {
      const close = /^(`{3,}|~{3,})[ \t]*$/.exec(content);
      if (close && close[1]![0] === this.open.char && close[1]!.length >= this.open.length) {
        this.open = undefined;
      }
      return true;
    }
    const open = FENCE_OPEN.exec(content);
    if (open && !(open[1]![0] === '`' && open[2]!.includes('`'))) {
      this.open = { char: open[1]![0]!, length: open[1]!.length };
      return true;
    }
    return false;
  }

  /** The line that closes the block currently open, if any. */
  closingLine(): string | undefined {
    return this.open ? this.open.char.repeat(this.open.length) : undefined;
  }
}

function leadingWidth(prefix: string): number {
  let width = 0;
  for (const ch of prefix) width += ch === '\t' ? 4 : 1;
  return width;
}

/** Line endings as GitLab sees them: it deletes `\r`, so a lone `\r` must become `\n` first. */
export function normalizeLineEndings(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}

/**
 * Escapes every line that would start with `/` (after indentation, blockquote
 * and list markers), so GitLab never runs it as a quick action. Idempotent.
 * Also removes NUL characters, which GitLab refuses.
 */
export function escapeQuickActions(text: string): string {
  const fences = new FenceTracker();
  const lines = normalizeLineEndings(text.replaceAll('\u0000', '')).split('\n');
  return lines
    .map((line) => {
      const prefix = CONTAINER_PREFIX.exec(line)![0];
      const content = line.slice(prefix.length);
      const inCode = fences.feed(content);
      if (!content.startsWith('/')) return line;
      const indentedCode = /^[ \t]*$/.test(prefix) && leadingWidth(prefix) >= 4;
      const escape = inCode || indentedCode ? ZERO_WIDTH_SPACE : '\\';
      return `${prefix}${escape}${content}`;
    })
    .join('\n');
}

/**
 * The same for plain text that GitLab may later take as a description — a
 * commit message becomes the description of a merge request opened in GitLab
 * from a branch with that one commit: a zero-width space goes before every `/`
 * that would start a line, since a backslash would show in `git log`.
 */
export function escapeQuickActionsInPlainText(text: string): string {
  return normalizeLineEndings(text.replaceAll('\u0000', ''))
    .split('\n')
    .map((line) => {
      const prefix = CONTAINER_PREFIX.exec(line)![0];
      const content = line.slice(prefix.length);
      return content.startsWith('/') ? `${prefix}${ZERO_WIDTH_SPACE}${content}` : line;
    })
    .join('\n');
}

/** Whether some line still starts with an unescaped `/` (used by tests and as a guard). */
export function hasUnescapedQuickAction(text: string): boolean {
  return normalizeLineEndings(text)
    .split('\n')
    .some((line) => line.slice(CONTAINER_PREFIX.exec(line)![0].length).startsWith('/'));
}

export interface TruncateOptions {
  maxChars?: number;
  /** Where the full text can be found, named in the truncation line. */
  fullTextHint?: string;
}

/**
 * Cuts a body to at most `maxChars` characters at a line boundary, closing a
 * fenced block and `<details>` sections left open, and ends it with a line
 * saying it was truncated. A surrogate pair is never split.
 */
export function truncateNote(body: string, options: TruncateOptions = {}): string {
  const maxChars = options.maxChars ?? NOTE_MAX_CHARS;
  if (body.length <= maxChars) return body;
  const hint = options.fullTextHint ?? 'the full text is in the job artifacts';
  const notice = (omitted: number) =>
    `\n\n---\n\n⚠️ **Truncated**: ${omitted.toLocaleString('en-US')} characters were cut to keep this note below GitLab's size limit; ${hint}.`;
  let cut = chooseCut(body, maxChars - notice(body.length).length - 64);
  for (;;) {
    const head = body.slice(0, cut);
    const result = `${head}${closersFor(head)}${notice(body.length - cut)}`;
    if (result.length <= maxChars || cut === 0) return result;
    cut = chooseCut(body, cut - (result.length - maxChars) - 1);
  }
}

/** A cut position at or below `budget`: a line end when one is near, never inside a surrogate pair. */
function chooseCut(body: string, budget: number): number {
  const limit = Math.max(0, budget);
  let cut = body.lastIndexOf('\n', limit);
  if (cut < limit / 2) cut = limit;
  if (cut > 0 && isHighSurrogate(body.charCodeAt(cut - 1))) cut -= 1;
  return cut;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function closersFor(head: string): string {
  const fences = new FenceTracker();
  let openDetails = 0;
  for (const line of normalizeLineEndings(head).split('\n')) {
    const content = line.slice(CONTAINER_PREFIX.exec(line)![0].length);
    if (fences.feed(content)) continue;
    openDetails += (line.match(/<details\b/gi) ?? []).length;
    openDetails -= (line.match(/<\/details>/gi) ?? []).length;
  }
  const parts: string[] = [];
  const fence = fences.closingLine();
  if (fence) parts.push(`\n${fence}`);
  for (let i = 0; i < Math.max(0, openDetails); i += 1) parts.push('\n\n</details>');
  return parts.join('');
}

/** Fences untrusted text (command output, issue bodies, file contents): core/text.ts. */
export { fence } from '../core/text.ts';

/** An inline code span that the text cannot break out of: core/text.ts. */
export { inlineCode } from '../core/text.ts';

/** Collapses whitespace to single spaces and shortens to `max` characters with an ellipsis. */
export function oneLine(text: string, max = 300): string {
  return cutText(text.replace(/\s+/g, ' ').trim(), max);
}

/** Text for one markdown table cell: one line, pipes escaped. */
export function tableCell(text: string, max = 200): string {
  return oneLine(text, max).replace(/\|/g, '\\|');
}

/**
 * Agent or LLM prose shown as markdown: HTML comments are neutralised (they
 * could hide text or imitate mr-agent's own note marker), NUL removed.
 * Quick actions are escaped later, on the whole body.
 */
export function safeProse(text: string): string {
  return normalizeLineEndings(text.replaceAll('\u0000', '')).replace(/<!--/g, '&lt;!--').trim();
}

/**
 * Prose whose single line breaks must show in GitLab, where a lone newline
 * joins two lines into one: every line followed by another non-blank line
 * ends with two spaces (a hard break). Fenced code is left as it is.
 */
export function keepLineBreaks(text: string): string {
  const fences = new FenceTracker();
  const lines = normalizeLineEndings(text).split('\n');
  return lines
    .map((line, i) => {
      const inCode = fences.feed(line.slice(CONTAINER_PREFIX.exec(line)![0].length));
      const next = lines[i + 1];
      if (inCode || next === undefined || next.trim() === '' || line.trim() === '') return line;
      if (fences.open === undefined && /^\s*(`{3,}|~{3,})/.test(next)) return line;
      return line.endsWith('  ') ? line : `${line.trimEnd()}  `;
    })
    .join('\n');
}

/** A bullet list of prose items (each kept on one line); `empty` when there are none. */
export function bulletList(items: readonly string[], empty = '- _none_'): string {
  if (items.length === 0) return empty;
  return items.map((item) => `- ${safeProse(item).replace(/\n+/g, ' ')}`).join('\n');
}

/** A link target that cannot end the markdown link early (spaces, parentheses, angle brackets encoded). */
export function safeUrl(url: string): string {
  return url.trim().replace(/[\s()<>]/g, (ch) => encodeURIComponent(ch));
}

/** `[label](url)` with the label kept on one line and free of brackets. */
export function link(label: string, url: string): string {
  return `[${oneLine(safeProse(label), 120).replace(/[[\]]/g, '')}](${safeUrl(url)})`;
}
