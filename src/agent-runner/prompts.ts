import { promptFiles } from '../llm/prompt-files.ts';

/** The English prompt files of the meta-agent (prompts/meta/*.md, J3). */
export interface MetaPrompts {
  system: string;
  planTask: string;
  nextAction: string;
  completionAssessment: string;
}

const FILES: Record<keyof MetaPrompts, string> = {
  system: 'system',
  planTask: 'plan-task',
  nextAction: 'next-action',
  completionAssessment: 'completion-assessment',
};

/**
 * Loads the meta prompts through the one prompt loader (core/prompts.ts): a
 * file in `overrideDir/meta/` (option `prompts.directory`) replaces the
 * shipped one; `systemPrompt` (Task YAML `runner.meta.system_prompt`)
 * replaces the system prompt.
 */
export async function loadMetaPrompts(
  options: { overrideDir?: string; systemPrompt?: string } = {},
): Promise<MetaPrompts> {
  const files = promptFiles(options.overrideDir, 'meta');
  const prompts = {} as MetaPrompts;
  for (const [key, name] of Object.entries(FILES) as [keyof MetaPrompts, string][]) {
    prompts[key] = (await files.load(name)).trim();
  }
  if (options.systemPrompt?.trim()) prompts.system = options.systemPrompt.trim();
  return prompts;
}
