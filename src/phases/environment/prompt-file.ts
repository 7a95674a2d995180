import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Separates the system part of a prompt file from the user part. */
export const USER_MARKER = '<!-- user -->';

/** The `prompts/` folder shipped with the package (found from this module, in src/ or dist/). */
function builtInDirectory(file: string): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i += 1) {
    const candidate = path.join(dir, 'prompts');
    if (existsSync(path.join(candidate, file))) return candidate;
    dir = path.dirname(dir);
  }
  throw new Error(`the built-in prompt file prompts/${file} is missing from this installation`);
}

/**
 * Reads prompt `name` (`prompts/<name>.md`): from `overrideDir`
 * (`prompts.directory`) when it has the file, else the built-in one.
 */
export async function loadPrompt(name: string, overrideDir?: string): Promise<string> {
  const file = `${name}.md`;
  if (overrideDir && existsSync(path.join(overrideDir, file))) {
    return readFile(path.join(overrideDir, file), 'utf8');
  }
  return readFile(path.join(builtInDirectory(file), file), 'utf8');
}

/** Replaces `{{key}}` placeholders; a placeholder without a value is an error (a broken prompt file). */
export function fillTemplate(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (_all, key: string) => {
    const value = values[key];
    if (value === undefined) throw new Error(`prompt placeholder {{${key}}} has no value`);
    return value;
  });
}

/** Splits a filled prompt into its system and user parts at `<!-- user -->`. */
export function splitPrompt(text: string): { system: string; user: string } {
  const at = text.indexOf(USER_MARKER);
  if (at < 0) return { system: '', user: text.trim() };
  return { system: text.slice(0, at).trim(), user: text.slice(at + USER_MARKER.length).trim() };
}

/**
 * Fences untrusted text (command output, file contents) as data: the fence
 * is longer than any run of backticks inside, so the text cannot close it.
 */
export function fence(text: string, label = 'text'): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = '`'.repeat(longest + 1);
  return `${ticks}${label}\n${text}\n${ticks}`;
}
