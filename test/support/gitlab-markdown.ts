/**
 * A note as GitLab shows it: parsed with GitLab's Markdown rules as far as
 * they matter here (CommonMark with `breaks: false` — a lone newline joins
 * two lines —, raw HTML such as <details>, task lists), through markdown-it.
 * The result is the note's visible lines, in order, each marked folded when
 * it sits inside a <details> block, plus what a reader can't see in it
 * (soft breaks) and which block kinds are folded.
 */
import MarkdownIt from 'markdown-it';
import type { Token } from 'markdown-it';
import taskLists from 'markdown-it-task-lists';

const md = new MarkdownIt({ html: true, linkify: true, breaks: false }).use(taskLists, {
  enabled: false,
});

export interface RenderedLine {
  text: string;
  /** The same line without inline code and code blocks (what is prose). */
  prose: string;
  folded: boolean;
  block: string;
}

export interface RenderedNote {
  lines: RenderedLine[];
  /** Newlines that GitLab turns into a space (a line meant to stand alone would run on). */
  softBreaks: string[];
  /** Block kinds outside any <details>. */
  visibleBlocks: Set<string>;
  foldedBlocks: Set<string>;
  /** The `<summary>` texts of the folds. */
  summaries: string[];
  html: string;
}

function inlineText(token: Token, softBreaks: string[]): { text: string; prose: string } {
  let text = '';
  let prose = '';
  for (const child of token.children ?? []) {
    if (child.type === 'text') {
      text += child.content;
      prose += child.content;
    } else if (child.type === 'code_inline') {
      text += child.content;
      prose += ' ';
    } else if (child.type === 'softbreak') {
      softBreaks.push(token.content);
      text += ' ';
      prose += ' ';
    } else if (child.type === 'hardbreak') {
      text += '\n';
      prose += '\n';
    }
  }
  return { text, prose };
}

export function renderGitLab(body: string): RenderedNote {
  const tokens = md.parse(body, {});
  const note: RenderedNote = {
    lines: [],
    softBreaks: [],
    visibleBlocks: new Set(),
    foldedBlocks: new Set(),
    summaries: [],
    html: md.render(body),
  };
  let depth = 0;
  const blocks: string[] = [];
  for (const token of tokens) {
    if (token.type === 'html_block') {
      const summary = /<summary>([\s\S]*?)<\/summary>/.exec(token.content);
      if (summary) note.summaries.push(summary[1]!.trim());
      depth += (token.content.match(/<details\b/g) ?? []).length;
      depth -= (token.content.match(/<\/details>/g) ?? []).length;
      continue;
    }
    if (token.nesting === 1) blocks.push(token.type.replace(/_open$/, ''));
    if (token.nesting === -1) blocks.pop();
    const kind = token.type.replace(/_(open|close)$/, '');
    (depth > 0 ? note.foldedBlocks : note.visibleBlocks).add(kind);
    if (token.type === 'fence' || token.type === 'code_block') {
      for (const line of token.content.split('\n').filter(Boolean))
        note.lines.push({ text: line, prose: '', folded: depth > 0, block: kind });
    }
    if (token.type !== 'inline') continue;
    const { text, prose } = inlineText(token, note.softBreaks);
    const proseLines = prose.split('\n');
    text.split('\n').forEach((line, i) => {
      if (line.trim() === '') return;
      note.lines.push({
        text: line.trim(),
        prose: (proseLines[i] ?? '').trim(),
        folded: depth > 0,
        block: blocks.at(-1) ?? 'inline',
      });
    });
  }
  return note;
}

/** The visible lines (outside <details>), as text. */
export function visibleText(note: RenderedNote): string[] {
  return note.lines.filter((l) => !l.folded).map((l) => l.text);
}

/** English words in prose (code, code blocks and URLs left out). */
export function englishWords(note: RenderedNote): string[] {
  return note.lines.flatMap((l) =>
    [...l.prose.replace(/\bhttps?:\/\/\S+|@[\w.-]+/g, ' ').matchAll(/[A-Za-z0-9][\w'’]*/g)]
      .map((m) => m[0])
      // words only: commit SHAs, numbers and ids are not English
      .filter((w) => /^[A-Za-z][A-Za-z'’]+$/.test(w)),
  );
}
