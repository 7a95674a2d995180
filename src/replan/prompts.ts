import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '../errors/errors.ts';
import { builtinPromptsDir } from '../run/prompts.ts';
import type { ReplanPoint } from '../run/hooks.ts';

/** The prompt files of replanning: `prompts/replan/<name>.md` (English, J3). */
export type ReplanPromptName = ReplanPoint | 'system' | 'escalation' | 'answers' | 'assumptions';

export interface ReplanPrompts {
  load(name: ReplanPromptName): Promise<string>;
}

/**
 * Loads `replan/<name>.md` from `overrideDir` (`prompts.directory`) when it
 * is there, else the shipped file.
 */
export function replanPrompts(overrideDir = ''): ReplanPrompts {
  const cache = new Map<ReplanPromptName, string>();
  return {
    async load(name) {
      const cached = cache.get(name);
      if (cached !== undefined) return cached;
      const file = path.join('replan', `${name}.md`);
      const override = overrideDir ? path.join(overrideDir, file) : undefined;
      let text: string;
      if (override && existsSync(override)) {
        text = await readFile(override, 'utf8').catch((error: unknown) => {
          throw new ConfigError(`cannot read the prompt file: ${(error as Error).message}`, {
            where: override,
          });
        });
      } else {
        text = await readFile(path.join(builtinPromptsDir(), file), 'utf8');
      }
      cache.set(name, text);
      return text;
    },
  };
}
