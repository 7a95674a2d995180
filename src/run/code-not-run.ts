/**
 * The parts of a run whose checkout must not run (a fork's merge request,
 * see docs/security.md), as src/run/compose.ts wires them: setup that runs nothing,
 * the execution prompt's reason, and the tools without `run_command`.
 */
import type { CodeNotRun } from '../core/run-context.ts';
import type { EnvironmentStep } from '../core/ports.ts';
import { renderPrompt } from '../core/prompts.ts';
import { readPrompt } from '../llm/prompt-files.ts';
import { builtinTools } from '../tools/index.ts';
import type { Tool } from '../core/tool.ts';

/** A reason as a sentence of its own: capital first letter, final full stop. */
function sentence(text: string): string {
  const trimmed = text.trim().replace(/\.$/, '');
  return `${trimmed.charAt(0).toUpperCase()}${trimmed.slice(1)}.`;
}

/**
 * Setup that runs nothing: the environment is still detected and chosen, but
 * its setup is `skipped` (with the reason in the note) and the hand-off names
 * no test command and no runner. The execution prompt says why there is no
 * `run_command` (prompts/code-not-run.md).
 */
export function notRunEnvironment(
  step: EnvironmentStep,
  notRun: CodeNotRun,
  promptsDir: string,
): EnvironmentStep {
  return {
    ...step,
    async setup(selected, signal) {
      const outcome = await step.setup(selected, signal);
      const { test_command: _test, runner: _runner, ...handoff } = outcome.handoff;
      return {
        handoff: { ...handoff, setup_status: 'skipped' },
        setupCommands: 0,
        verificationsPassed: 0,
        verificationsTotal: 0,
        durationMs: outcome.durationMs,
        detail: sentence(notRun.reason),
      };
    },
    async executionSection(handoff) {
      const own = await step.executionSection(handoff);
      const template = await readPrompt('code-not-run.md', promptsDir);
      return `${own}\n\n${renderPrompt(template, { reason: sentence(notRun.reason) })}`.trim();
    },
  };
}

/** The tools the model is offered (the built-in ones by default), without `run_command`. */
export function withoutCommands(tools: readonly Tool[] | undefined): Tool[] {
  return (tools ?? builtinTools()).filter((tool) => tool.name !== 'run_command');
}
