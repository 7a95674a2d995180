import { readdirSync, readFileSync } from 'node:fs';
import { parseComponentTemplate, renderInputsTable } from './template-spec.ts';
import { renderOptionsMarkdown } from './describe.ts';

const TEMPLATES_DIR = new URL('../../templates/', import.meta.url);

/** The inputs tables of every component template in templates/. */
export function renderInputsMarkdown(dir: URL = TEMPLATES_DIR): string {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.yml'))
    .sort()
    .map((file) => {
      const name = file.replace(/\.yml$/, '');
      const text = readFileSync(new URL(file, dir), 'utf8');
      return renderInputsTable(name, parseComponentTemplate(text, `templates/${file}`));
    })
    .join('\n\n');
}

/** Generated README sections by name: `<!-- generated:NAME -->` … `<!-- /generated:NAME -->`. */
export function renderReadmeSections(): Record<string, string> {
  return { options: renderOptionsMarkdown(), inputs: renderInputsMarkdown() };
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
