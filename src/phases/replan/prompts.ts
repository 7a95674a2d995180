import type { PromptFiles, PromptLibrary } from '../../core/prompts.ts';
import type { ReplanPoint } from '../../core/hooks.ts';

/** The prompt files of replanning: `prompts/replan/<name>.md` (English, like every prompt). */
export type ReplanPromptName = ReplanPoint | 'system' | 'escalation' | 'answers' | 'assumptions';

export type ReplanPrompts = PromptFiles<ReplanPromptName>;

/** The replan prompts of the run's prompt library. */
export function replanPrompts(library: PromptLibrary): ReplanPrompts {
  // the system prompt governs every checkpoint's reply (questions, reasoning shown in notes)
  return library.folder<ReplanPromptName>('replan', ['system']);
}
