import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../errors/errors.ts';
import { LANGUAGE_NAMES, type Language } from '../messages/language.ts';
import type { PromptFiles, PromptLibrary, PromptName } from '../core/prompts.ts';

/** The shipped `prompts/` folder, from the source tree or from `dist/`. */
export function builtinPromptsDir(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  for (const up of ['..', '../..', '../../..']) {
    const candidate = path.resolve(here, up, 'prompts');
    if (existsSync(path.join(candidate, 'planning.md'))) return candidate;
  }
  throw new Error('internal: the prompts folder is missing from the installation');
}

/**
 * Reads one prompt file (`file`, e.g. `replan/system.md`): from
 * `overrideDir` (option `prompts.directory`) when it holds that file, else the
 * shipped one. The one prompt loader; `promptFiles` caches on top of it.
 */
export async function readPrompt(file: string, overrideDir = ''): Promise<string> {
  const override = overrideDir ? path.join(overrideDir, file) : undefined;
  if (override && existsSync(override)) {
    return readFile(override, 'utf8').catch((error: unknown) => {
      throw new ConfigError(`cannot read the prompt file: ${(error as Error).message}`, {
        where: override,
      });
    });
  }
  const shipped = path.join(builtinPromptsDir(), file);
  return readFile(shipped, 'utf8').catch(() => {
    throw new ConfigError(`the prompt file prompts/${file} is missing`, {
      where: shipped,
      hint: 'Reinstall mr-agent, or put the file into the prompts directory you configured (prompts.directory).',
    });
  });
}

/** Prompt files (`<name>.md` below `subdir`), each read once (`readPrompt`). */
export function promptFiles<Name extends string>(overrideDir = '', subdir = ''): PromptFiles<Name> {
  const cache = new Map<Name, Promise<string>>();
  return {
    load(name) {
      let text = cache.get(name);
      if (!text) {
        text = readPrompt(path.join(subdir, `${name}.md`), overrideDir);
        cache.set(name, text);
        text.catch(() => cache.delete(name));
      }
      return text;
    },
  };
}

/**
 * Prompt files whose `names` end with the answer-language instruction
 * (`prompts/answer-language.md`) when the notes are not in
 * English: the prompts stay English, the model writes people's text in the
 * notes' language. English needs no instruction, so English runs see the
 * prompts unchanged.
 */
export function withAnswerLanguage<Name extends string>(
  files: PromptFiles<Name>,
  overrideDir: string,
  language: Language | undefined,
  names?: readonly Name[],
): PromptFiles<Name> {
  if (!language || language === 'en') return files;
  const rule = promptFiles<'answer-language'>(overrideDir);
  return {
    async load(name) {
      const text = await files.load(name);
      if (names && !names.includes(name)) return text;
      const instruction = (await rule.load('answer-language')).replaceAll(
        '{{language}}',
        LANGUAGE_NAMES[language],
      );
      return `${text.trimEnd()}\n\n${instruction.trim()}\n`;
    },
  };
}

/** The run's prompt files; `language`: the notes' language (the model answers in it). */
export function promptLibrary(overrideDir = '', language?: Language): PromptLibrary {
  const files = withAnswerLanguage(promptFiles<PromptName>(overrideDir), overrideDir, language);
  return {
    load: (name) => files.load(name),
    folder: <Name extends string>(subdir: string, answerLanguage: readonly Name[] = []) =>
      withAnswerLanguage(
        promptFiles<Name>(overrideDir, subdir),
        overrideDir,
        language,
        answerLanguage,
      ),
  };
}
