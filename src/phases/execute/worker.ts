import { CancelledError } from '../../errors/errors.ts';
import type { ActionWorker } from '../../core/ports.ts';
import type { RunContext } from '../../core/run-context.ts';
import { renderPrompt } from '../../core/prompts.ts';
import type { ActionRecord } from '../../core/records.ts';
import type { PlanStep } from '../../core/plan-steps.ts';
import { tail } from '../../core/shell-port.ts';
import { sandboxEnv } from '../../shell/sandbox-env.ts';
import { actionPrompt } from './index.ts';

const OUTPUT_HEAD_CHARS = 300;

/** The prompt the CLI gets: the rules, the environment it works in, then the action. */
async function workerPrompt(ctx: RunContext, step: PlanStep): Promise<string> {
  const env = ctx.state.environment;
  const section =
    env && ctx.deps.environment ? await ctx.deps.environment.executionSection(env) : '';
  return renderPrompt(await ctx.deps.prompts.load('worker-action'), {
    environment_section: section,
    action: actionPrompt(ctx, step),
  });
}

/** Paths of `git status --porcelain -z` (a rename names the new path first). */
export function statusPaths(output: string): string[] {
  const fields = output.split('\0');
  const paths: string[] = [];
  for (let i = 0; i < fields.length; i++) {
    const entry = fields[i]!;
    if (entry.length < 4) continue;
    paths.push(entry.slice(3));
    if (entry[0] === 'R' || entry[0] === 'C') i++;
  }
  return paths;
}

/** The files the worker left changed in the checkout (the state folder is not part of the change). */
async function changedFiles(ctx: RunContext): Promise<string[]> {
  const result = await ctx.deps.shell.run({
    command: 'git status --porcelain=v1 -z --untracked-files=all',
    cwd: ctx.repoDir,
    env: sandboxEnv(ctx.deps.hostEnv),
    timeoutMs: 60_000,
  });
  if (result.exitCode !== 0) {
    ctx.logger.warn('changed files unknown after the worker run', {
      error: tail(result.output, 300),
    });
    return [];
  }
  const stateDir = ctx.config.state.directory.replace(/\/+$/, '');
  return statusPaths(result.stdout).filter(
    (file) => file !== stateDir && !file.startsWith(`${stateDir}/`),
  );
}

/**
 * Carries out one planned action with the external coding CLI (docs/agent-runner.md)
 * instead of the builtin tool loop: one CLI run, whose summary, exit code
 * and output become the action's record that reflection and review judge
 * like any other; the files it changed join the run's change.
 */
export async function executeWithWorker(
  ctx: RunContext,
  step: PlanStep,
  worker: ActionWorker,
): Promise<ActionRecord> {
  const startedAt = ctx.deps.clock.now();
  const prompt = await workerPrompt(ctx, step);
  const run = await worker.run({
    prompt,
    repoDir: ctx.repoDir,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  });
  if (run.cancelled || ctx.signal?.aborted)
    throw new CancelledError('the run was cancelled during a worker run');
  for (const file of await changedFiles(ctx)) ctx.state.changedFiles.add(file);
  const { redactor } = ctx.deps;
  const ok = run.exitCode === 0 && run.error === undefined;
  const summary = redactor.redact(run.summary).trim() || '(no message)';
  const failed = /^failed\b/i.test(summary);
  const error = !ok
    ? redactor.redact(run.error ?? `the ${worker.kind} worker exited with ${run.exitCode}`)
    : failed
      ? summary.replace(/^failed:?\s*/i, '')
      : undefined;
  return {
    key: step.key,
    action: step.action,
    status: error === undefined ? 'success' : 'failure',
    summary,
    toolCalls: [
      {
        name: worker.kind,
        ok,
        brief: `exit ${run.exitCode ?? 'none'}${run.timedOut ? ' (timed out)' : ''}`,
        durationMs: run.durationMs,
        outputHead: redactor.redact(tail(run.rawOutput, OUTPUT_HEAD_CHARS)),
      },
    ],
    turns: 1,
    startedAt,
    finishedAt: ctx.deps.clock.now(),
    ...(error !== undefined ? { error } : {}),
  };
}
