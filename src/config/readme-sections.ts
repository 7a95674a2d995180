import { renderOptionsMarkdown } from './describe.ts';

/** Generated README sections by name: `<!-- generated:NAME -->` … `<!-- /generated:NAME -->`. */
export function renderReadmeSections(): Record<string, string> {
  return { options: renderOptionsMarkdown() };
}

export function replaceSections(text: string, sections: Record<string, string>): string {
  let out = text;
  for (const [name, body] of Object.entries(sections)) {
    const start = `<!-- generated:${name} -->`;
    const end = `<!-- /generated:${name} -->`;
    const from = out.indexOf(start);
    const to = out.indexOf(end);
    if (from === -1 || to === -1 || to < from) continue;
    out = `${out.slice(0, from + start.length)}\n${body}\n${out.slice(to)}`;
  }
  return out;
}
