import { access, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../errors/errors.ts';

/** The English prompt files of the meta-agent (prompts/meta/*.md, J3). */
export interface MetaPrompts {
  system: string;
  planTask: string;
  nextAction: string;
  completionAssessment: string;
}

const FILES: Record<keyof MetaPrompts, string> = {
  system: 'system.md',
  planTask: 'plan-task.md',
  nextAction: 'next-action.md',
  completionAssessment: 'completion-assessment.md',
};

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}

/** The bundled `prompts/` folder: found upwards from this module (src/ in development, dist/ when bundled). */
export async function bundledPromptsDir(): Promise<string> {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i += 1) {
    const candidate = path.join(dir, 'prompts');
    if (await exists(path.join(candidate, 'meta', FILES.system))) return candidate;
    dir = path.dirname(dir);
  }
  throw new Error('the bundled prompts/ folder was not found');
}

/**
 * Loads the meta prompts. A file in `overrideDir/meta/` (option
 * `prompts.directory`) replaces the bundled one; `systemPrompt` (Task YAML
 * `runner.meta.system_prompt`) replaces the system prompt.
 */
export async function loadMetaPrompts(
  options: { overrideDir?: string; systemPrompt?: string } = {},
): Promise<MetaPrompts> {
  const bundled = await bundledPromptsDir();
  const prompts = {} as MetaPrompts;
  for (const [key, file] of Object.entries(FILES) as [keyof MetaPrompts, string][]) {
    const override = options.overrideDir ? path.join(options.overrideDir, 'meta', file) : '';
    const chosen =
      override && (await exists(override)) ? override : path.join(bundled, 'meta', file);
    prompts[key] = (await readFile(chosen, 'utf8')).trim();
  }
  if (options.systemPrompt?.trim()) prompts.system = options.systemPrompt.trim();
  return prompts;
}

/** Fills `{{name}}` placeholders; a placeholder without a value is an error in the prompt file. */
export function renderPrompt(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/\{\{\s*([a-z_]+)\s*\}\}/g, (_match, name: string) => {
    const value = values[name];
    if (value === undefined)
      throw new ConfigError(`prompt placeholder {{${name}}} has no value`, {
        where: 'prompts/meta',
        hint: `use only {{${Object.keys(values).join('}}, {{')}}} in meta prompt files.`,
      });
    return value;
  });
}
