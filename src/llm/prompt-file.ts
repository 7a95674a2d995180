import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../errors/errors.ts';

/**
 * Reads a prompt file: from `overrideDir` when it has one of that name
 * (option `prompts.directory`), else from the package's `prompts/`, found
 * by walking up from this module (works from `src/` and from the bundle).
 */
export function readPromptFile(name: string, overrideDir?: string): string {
  if (overrideDir) {
    const custom = join(overrideDir, name);
    if (existsSync(custom)) return readFileSync(custom, 'utf8');
  }
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let up = 0; up < 5; up++) {
    const candidate = join(dir, 'prompts', name);
    if (existsSync(candidate)) return readFileSync(candidate, 'utf8');
    dir = dirname(dir);
  }
  throw new ConfigError(`prompt file ${name} not found`, {
    where: `prompts/${name}`,
    hint: 'Reinstall mr-agent, or put the file into the prompts directory you configured.',
  });
}

/** Replaces `{{name}}` placeholders; unknown placeholders stay as they are. */
export function fillPrompt(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (whole, key: string) => values[key] ?? whole);
}
