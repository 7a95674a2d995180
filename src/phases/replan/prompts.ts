import { promptFiles, withAnswerLanguage } from '../../llm/prompt-files.ts';
import type { Language } from '../../messages/language.ts';
import type { ReplanPoint } from '../../core/hooks.ts';

/** The prompt files of replanning: `prompts/replan/<name>.md` (English, J3). */
export type ReplanPromptName = ReplanPoint | 'system' | 'escalation' | 'answers' | 'assumptions';

export interface ReplanPrompts {
  load(name: ReplanPromptName): Promise<string>;
}

/**
 * Loads `replan/<name>.md` from `overrideDir` (`prompts.directory`) when it
 * is there, else the shipped file.
 */
export function replanPrompts(overrideDir = '', language?: Language): ReplanPrompts {
  // the system prompt governs every checkpoint's reply (questions, reasoning shown in notes)
  return withAnswerLanguage(
    promptFiles<ReplanPromptName>(overrideDir, 'replan'),
    overrideDir,
    language,
    ['system'],
  );
}
