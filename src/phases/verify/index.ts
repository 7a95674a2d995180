import type { RunContext } from '../../core/run-context.ts';
import { fenceData, renderPrompt } from '../../core/prompts.ts';
import type { TestRun } from '../../core/records.ts';
import { commandsRefused, isolatedRequest } from '../../core/isolation.ts';
import { inEnvironment } from '../../shell/in-environment.ts';
import { tail } from '../../core/shell-port.ts';
import { COMMAND_OUTPUT_BYTES, KILL_AFTER_MS } from '../../tools/command.ts';
import { resolveInRepo } from '../../tools/sandbox.ts';
import { progressDigest } from '../../core/progress/digest.ts';
import { CompletionAssessment } from '../../core/completion.ts';
import { resolveTestCommand } from './test-command.ts';

const TEST_TAIL_CHARS = 4000;

export interface VerifyResult {
  test?: TestRun;
  assessment: CompletionAssessment;
  /** All criteria satisfied and the tests (if any) passed. */
  complete: boolean;
}

/** Runs a command inside the selected environment (the hand-off's runner, docs/environment.md). */
async function runInEnvironment(ctx: RunContext, command: string, cwd: string) {
  const inside = inEnvironment(command, ctx.deps.hostEnv, ctx.state.environment?.runner);
  return ctx.deps.shell.run(
    await isolatedRequest(ctx.deps.isolation, {
      command: inside.command,
      cwd,
      env: inside.env,
      timeoutMs: ctx.config.execution.command_timeout_sec * 1000,
      killAfterMs: KILL_AFTER_MS,
      maxOutputBytes: COMMAND_OUTPUT_BYTES,
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    }),
  );
}

/** Runs the task's test command (Task YAML, config or detected), if there is one. */
export async function runTests(ctx: RunContext): Promise<TestRun | undefined> {
  if (ctx.deps.codeNotRun) {
    ctx.logger.info('tests not run', { reason: ctx.deps.codeNotRun.reason });
    return undefined;
  }
  const test = await resolveTestCommand(ctx.task, ctx.config, ctx.repoDir, ctx.state.environment);
  if (!test) {
    ctx.logger.info('no test command found');
    return undefined;
  }
  const refused = commandsRefused(ctx.deps.isolation);
  if (refused) {
    ctx.logger.warn('tests skipped', { command: test.command, reason: refused });
    return undefined;
  }
  const cwd = await resolveInRepo(ctx.toolContext.root, test.cwd);
  const result = await runInEnvironment(ctx, test.command, cwd);
  ctx.logger.info('command finished', {
    command: test.command,
    exitCode: result.exitCode,
    outputLength: result.output.length,
    durationMs: result.durationMs,
    kind: 'test',
  });
  return {
    command: test.command,
    cwd: test.cwd,
    exitCode: result.exitCode,
    passed: !result.failed,
    timedOut: result.timedOut,
    durationMs: result.durationMs,
    outputTail: ctx.deps.redactor.redact(tail(result.output, TEST_TAIL_CHARS)),
    source: test.source,
  };
}

async function gitStatus(ctx: RunContext): Promise<string | undefined> {
  const git = ctx.deps.checkout.git({
    shell: ctx.deps.shell,
    cwd: ctx.repoDir,
    hostEnv: ctx.deps.hostEnv,
    timeoutMs: ctx.config.execution.command_timeout_sec * 1000,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  });
  const result = await git.run(['status', '--short']);
  return result.exitCode === 0 ? result.stdout.slice(0, 4000) : undefined;
}

function testsSection(ctx: RunContext, test: TestRun | undefined): string {
  if (test)
    return `## Tests\n\nCommand: ${test.command} (exit code ${test.exitCode ?? 'none'}${test.timedOut ? ', timed out' : ''}, ${test.passed ? 'passed' : 'FAILED'})\n\n${fenceData('test output (end)', test.outputTail)}`;
  if (ctx.deps.codeNotRun)
    return `## Tests\n\nNot run: ${ctx.deps.codeNotRun.reason}. Judge from the other evidence.`;
  const refused = commandsRefused(ctx.deps.isolation);
  return refused
    ? `## Tests\n\nThe tests were not run: ${refused}. Judge from the other evidence.`
    : '## Tests\n\nNo test command is configured or detected; judge from the other evidence.';
}

async function userPrompt(ctx: RunContext, test: TestRun | undefined): Promise<string> {
  const { state } = ctx;
  const goal = state.plan!.goal_understanding;
  const status = await gitStatus(ctx);
  return [
    `## Goal\n\n${goal.main_objective}`,
    `## Acceptance criteria\n\n${goal.success_criteria.map((c, i) => `AC-${i + 1}: ${c}`).join('\n')}`,
    `## Execution\n\n${progressDigest({ actions: state.actions, upcoming: state.queue, changedFiles: state.changedFiles })}`,
    testsSection(ctx, test),
    status !== undefined
      ? `## Working tree changes (git status --short)\n\n${fenceData('git status', status || '(no changes)')}`
      : '',
  ]
    .filter(Boolean)
    .join('\n\n');
}

/**
 * Verification (the VALIDATING state): run the tests, then
 * ask for the completion assessment. Failing tests always leave the task
 * incomplete, whatever the model says.
 */
export async function verify(ctx: RunContext): Promise<VerifyResult> {
  const test = await runTests(ctx);
  const system = renderPrompt(await ctx.deps.prompts.load('completion'), {
    extra_instructions: ctx.task.meta.systemPrompt
      ? `\n## Additional instructions from the task file\n\n${ctx.task.meta.systemPrompt}`
      : '',
  });
  const reply = await ctx.llm.json({
    purpose: 'completion',
    role: 'planning',
    messages: [
      { role: 'system', content: system },
      { role: 'user', content: await userPrompt(ctx, test) },
    ],
    schema: CompletionAssessment,
    schemaName: 'completion_assessment',
  });
  const assessment = reply.value;
  const testsOk = test === undefined || test.passed;
  if (assessment.all_criteria_satisfied && !testsOk)
    ctx.logger.warn('completion claimed although tests failed', { command: test?.command });
  return {
    ...(test ? { test } : {}),
    assessment,
    complete: assessment.all_criteria_satisfied && testsOk,
  };
}
