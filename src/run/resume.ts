import type { Checkpoint } from '../core/checkpoint.ts';
import type { ActionRecord } from '../core/records.ts';
import type { RunContext } from '../core/run-context.ts';
import { t, type MessageKey } from '../messages/catalog.ts';
import { runLanguage } from '../messages/language.ts';
import { adoptPlan, markItem } from '../phases/plan/state.ts';
import { Git } from '../shell/git.ts';

/** A checkpoint whose change is back in the working tree, ready to go on from. */
export interface Resumable {
  checkpoint: Checkpoint;
  ref: string;
}

function notice(ctx: RunContext, key: MessageKey, params: Record<string, string | number> = {}) {
  const text = t(runLanguage(ctx), key, params);
  ctx.logger.info('resume', { notice: text });
  ctx.deps.reporter.notice?.(text);
}

function checkoutGit(ctx: RunContext): Git {
  return new Git({
    shell: ctx.deps.shell,
    cwd: ctx.repoDir,
    hostEnv: ctx.deps.hostEnv,
    timeoutMs: ctx.config.execution.command_timeout_sec * 1000,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  });
}

/** The paths a patch writes (`+++ b/<path>`). */
function patchedPaths(patch: string): string[] {
  return [...patch.matchAll(/^\+\+\+ b\/(.+)$/gm)].map((m) => m[1]!);
}

/**
 * Finds the newest checkpoint of an earlier run on this merge request or
 * issue and puts its change back into the working tree: only when the
 * branch is still at the commit the checkpoint was made on, and only when
 * the change applies cleanly and is then found in the tree. Every other
 * case — none, unreadable, older than the branch's new commits, not
 * applying — says so in the note and leaves the tree as it was: the run
 * makes a fresh plan.
 */
export async function restoreCheckpoint(
  ctx: RunContext,
  asked: 'continue' | 'retry',
): Promise<Resumable | undefined> {
  const store = ctx.deps.checkpoints;
  if (!store) return undefined;
  let found;
  try {
    found = await store.newest();
  } catch (error) {
    notice(ctx, 'resume.corrupt', { problem: (error as Error).message.slice(0, 200) });
    return undefined;
  }
  // a retry without a checkpoint is an ordinary retry (it may reuse the earlier plan from the history)
  if (found.kind === 'none') {
    if (asked === 'continue') notice(ctx, 'resume.none');
    return undefined;
  }
  if (found.kind === 'corrupt') {
    notice(ctx, 'resume.corrupt', { problem: found.problem });
    return undefined;
  }
  const { checkpoint, patch, ref } = found;
  // nothing done and nothing changed: the history's plan reuse covers it as well
  if (!checkpoint.completed.some((a) => a.status === 'success') && patch.trim() === '') {
    await store.discardRef(ref).catch(() => undefined);
    return undefined;
  }
  const git = checkoutGit(ctx);
  const head = (await git.must(['rev-parse', 'HEAD'])).trim();
  if (checkpoint.base_commit !== head) {
    notice(ctx, 'resume.stale', { run: checkpoint.run_id });
    return undefined;
  }
  if (patch.trim() !== '') {
    const args = ['apply', '--binary', '--whitespace=nowarn'];
    const check = await git.run([...args, '--check'], patch);
    if (check.exitCode !== 0) {
      ctx.logger.warn('checkpoint change does not apply', { stderr: check.stderr.slice(0, 500) });
      notice(ctx, 'resume.notApplied', { run: checkpoint.run_id });
      return undefined;
    }
    await git.must(args, patch);
    // the tree now holds the change: reversing it would apply cleanly
    const held = await git.run([...args, '--reverse', '--check'], patch);
    if (held.exitCode !== 0)
      throw new Error(`the checkpoint's change is not in the working tree after applying it`);
    for (const file of patchedPaths(patch)) ctx.state.changedFiles.add(file);
  }
  return { checkpoint, ref };
}

/**
 * The checkpoint's plan becomes the run's plan; the actions it finished
 * successfully are recorded as done (not run again), the rest are the queue.
 */
export async function adoptCheckpoint(ctx: RunContext, resumable: Resumable): Promise<void> {
  const { checkpoint, ref } = resumable;
  const { state } = ctx;
  await adoptPlan(ctx, checkpoint.plan, 'initial', undefined);
  const done = new Map(
    checkpoint.completed.filter((a) => a.status === 'success').map((a) => [a.task_id, a]),
  );
  const now = ctx.deps.clock.now();
  const queue = [];
  for (const step of state.queue) {
    const finished = done.get(step.action.task_id);
    // an action cut off by the stop is in neither list: it is done again, like the rest
    if (!finished) {
      queue.push(step);
      continue;
    }
    const record: ActionRecord = {
      key: step.key,
      action: step.action,
      status: 'success',
      summary: finished.summary,
      toolCalls: [],
      turns: 0,
      startedAt: now,
      finishedAt: now,
    };
    state.actions.push(record);
    markItem(ctx, step.key, 'done');
  }
  state.queue = queue;
  state.actionCount = state.actions.length;
  state.resumedFrom = ref;
  notice(ctx, 'resume.resumed', { run: checkpoint.run_id, done: state.actions.length });
}
