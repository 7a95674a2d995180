import type { Redactor } from '../../log/redact.ts';
import {
  fenceData,
  renderPrompt,
  type EnvironmentPromptName,
  type PromptFiles,
} from '../../core/prompts.ts';
import type { EnvironmentHandoff } from '../../core/environment.ts';
import { inlineCode } from '../../core/text.ts';

export const SECTION_PROMPT = 'environment-section' satisfies EnvironmentPromptName;

/** Keeps `<!-- if:name -->…<!-- end:name -->` blocks whose flag is set, drops the others. */
export function applyConditions(
  template: string,
  flags: Readonly<Record<string, boolean>>,
): string {
  return template.replace(
    /<!-- if:(\w+) -->\n?([\s\S]*?)<!-- end:\1 -->\n?/g,
    (_all, name: string, body: string) => (flags[name] ? body : ''),
  );
}

/**
 * The environment section of the execution prompt:
 * environment, setup status, how commands run inside the environment, its
 * package manager and test command and, after a failed
 * setup, the warning and the errors (fenced: they hold command output).
 */
export async function renderEnvironmentSection(
  handoff: EnvironmentHandoff,
  options: { prompts: PromptFiles<EnvironmentPromptName>; redactor?: Redactor },
): Promise<string> {
  const template = await options.prompts.load(SECTION_PROMPT);
  const errors = handoff.errors.map((e) => `- ${e}`).join('\n') || '- (no details recorded)';
  const redacted = options.redactor ? options.redactor.redact(errors) : errors;
  const test = handoff.test_command;
  const text = applyConditions(template, {
    failed: handoff.setup_status === 'failed',
    skipped: handoff.setup_status === 'skipped',
    runner: handoff.runner !== undefined,
    package_manager: handoff.package_manager !== undefined,
    test_command: test !== undefined,
  });
  return renderPrompt(text, {
    environment_name: handoff.environment_name,
    setup_status: handoff.setup_status,
    error_list: fenceData('setup errors', redacted),
    run_hint: handoff.runner?.description ?? '',
    package_manager: handoff.package_manager ?? '',
    test_command: test
      ? `${inlineCode(test.command)}${test.cwd === '.' ? '' : ` (in ${inlineCode(`${test.cwd}/`)})`}, run inside the environment`
      : '',
  }).trim();
}
