/**
 * A compact terminal view of a note body for local runs (`mr-agent run`): the hidden
 * marker, Mermaid blocks, folded `<details>` sections and footers are left
 * out; headings, tables and checkboxes are simplified; the escapes added for
 * GitLab are undone. Colour only when writing to a TTY.
 */
import { ZERO_WIDTH_SPACE } from './markdown.ts';

const BOLD = '\u001b[1m';
const DIM = '\u001b[2m';
const RESET = '\u001b[0m';

interface Skip {
  until: RegExp;
}

function simplifyLine(line: string, color: boolean): string | undefined {
  if (/^\s*<!--.*-->\s*$/.test(line) || /^\s*<\/?sub>|^<sub>.*<\/sub>$/.test(line))
    return undefined;
  if (/^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/.test(line)) return undefined;
  let text = line
    .replaceAll(ZERO_WIDTH_SPACE, '')
    .replace(/^(\s*(?:>\s*)*(?:[-*+]\s+|\d+[.)]\s+)?)\\\//, '$1/')
    .replace(/^(\s*)- \[x\] /, '$1✔ ')
    .replace(/^(\s*)- \[ \] /, '$1☐ ');
  if (/^\|.*\|\s*$/.test(text)) {
    text = text
      .replace(/^\|\s*|\s*\|\s*$/g, '')
      .split(/\s*(?<!\\)\|\s*/)
      .filter((cell) => cell !== '')
      .join(' · ')
      .replace(/\\\|/g, '|');
  }
  const heading = /^#{1,6}\s+(.*)$/.exec(text);
  text = (heading ? heading[1]! : text)
    .replace(/\*\*(.+?)\*\*/g, color ? `${BOLD}$1${RESET}` : '$1')
    .replace(/^\*([^*].*)\*$/, '$1')
    .replace(/(^|[\s(])\*([^*\s][^*]*?)\*(?=$|[\s).,;:])/g, '$1$2');
  if (heading) return color ? `${BOLD}${text}${RESET}` : text;
  return text;
}

/** The terminal lines for a note body. */
export function terminalLines(body: string, color = false): string[] {
  const out: string[] = [];
  let skip: Skip | undefined;
  let folded = false;
  for (const line of body.replace(/\r\n?/g, '\n').split('\n')) {
    if (folded) {
      // the fold shows as its summary line: "▸ Run details · 6 phases · …"
      const summary = /<summary>(.*?)<\/summary>/.exec(line)?.[1] ?? '(folded section)';
      out.push(color ? `${DIM}▸ ${summary}${RESET}` : `▸ ${summary}`);
      folded = false;
    }
    if (skip) {
      if (skip.until.test(line)) skip = undefined;
      continue;
    }
    if (/^```mermaid\s*$/.test(line)) {
      skip = { until: /^```\s*$/ };
      continue;
    }
    if (/^\s*<details>/.test(line)) {
      folded = true;
      skip = { until: /^\s*<\/details>/ };
      continue;
    }
    const text = simplifyLine(line, color);
    if (text === undefined) continue;
    if (text.trim() === '' && (out.length === 0 || out[out.length - 1]!.trim() === '')) continue;
    out.push(text);
  }
  while (out.length > 0 && out[out.length - 1]!.trim() === '') out.pop();
  return out;
}
