import type { ConfigStages } from '../config/load.ts';
import type { Config } from '../config/options.ts';
import type { GitLabPort } from '../core/gitlab-port.ts';
import type { Logger } from '../log/logger.ts';
import type { Redactor } from '../log/redact.ts';
import { systemClock, type Clock } from '../core/clock.ts';
import { lazyExecaShell } from '../shell/lazy-shell.ts';
import { describeError } from '../errors/catalog.ts';
import { exitCodeFor } from '../errors/exit-code.ts';
import { guardGitLab, RequestBudget } from '../gitlab/request-budget.ts';
import { alreadyReported, RunLifecycle, type CancelExplainer } from '../run/lifecycle.ts';
import type { Shell } from '../core/shell-port.ts';
import type { CommandRequest } from '../commands/note-rules.ts';
import type { CiContext } from './context.ts';
import { finishWithNothingToDo } from './nothing-to-do.ts';
import type { CarriedOut } from './carry-out.ts';
import { explainCancel } from './cancel-cause.ts';
import { postFirstNote } from './first-note.ts';
import { prepareRun, type FirstNote, type PreparedRun } from './prepare.ts';
import type { CiServices, CiStepIo, JobServices } from './services.ts';

/** What every part of the run path shares: the job's services, with the run's lifecycle and request budget. */
interface Job {
  context: CiContext;
  payload: CommandRequest | undefined;
  env: Readonly<Record<string, string | undefined>>;
  /** The configuration resolved once: `base` before the default branch's file, `final(file)` with it. */
  config: ConfigStages;
  baseConfig: Config;
  redactor: Redactor;
  logger: Logger;
  clock: Clock;
  shell: Shell;
  /** Every call bounded by the request budget (gitlab.request_budget_sec). */
  gitlab: GitLabPort;
  budget: RequestBudget;
  lifecycle: RunLifecycle;
  /** When the job's process opened it (epoch ms, wall-clock). */
  openedAt: number;
  /** Lets the job's held log lines through (once the progress note is posted, or the job ends). */
  releaseLogs(): Promise<void>;
  /** Stops listening for signals on the logs' behalf. */
  unlisten(): void;
  /** The progress note posted before the run was composed, until the run adopts it. */
  firstNote?: FirstNote | undefined;
}

async function openJob(services: JobServices, payload: CommandRequest | undefined): Promise<Job> {
  const { context, io, overrides } = services;
  const baseConfig = services.config.base;
  const { logger, redactor, release } = await services.logging();
  // a termination signal before the note: what was logged is written, not lost at exit
  const unlisten = io.onSignal?.(() => void release()) ?? (() => undefined);
  const client = await services.gitlab();
  const budget = new RequestBudget(baseConfig.gitlab.request_budget_sec * 1000);
  const lifecycle = new RunLifecycle({
    onSignal: io.onSignal,
    logger,
    graceMs: overrides.graceMs,
    exit: io.exit,
  });
  return {
    context,
    payload,
    env: services.env,
    config: services.config,
    baseConfig,
    redactor,
    logger,
    clock: overrides.clock ?? systemClock,
    shell: overrides.shell ?? lazyExecaShell(),
    gitlab: guardGitLab(client, { budget }),
    budget,
    lifecycle,
    openedAt: Date.now(),
    releaseLogs: release,
    unlisten,
  };
}

async function prepareAndCarryOut(
  job: Job,
  io: CiStepIo,
  services: CiServices,
): Promise<CarriedOut> {
  const { context, lifecycle } = job;
  const prepared = await lifecycle.beforeRun(
    prepareRun(context, job.payload, {
      env: job.env,
      config: job.config,
      gitlab: job.gitlab,
      shell: job.shell,
      logger: job.logger,
      redactor: job.redactor,
      ...(services.onChecks ? { onChecks: services.onChecks } : {}),
      announce: async (accepted) => {
        const note = await postFirstNote(accepted, {
          redactor: job.redactor,
          logger: job.logger,
          clock: job.clock,
          write: (text) => io.stdout.write(text),
        });
        if (note) {
          job.firstNote = note;
          void job.releaseLogs();
        }
        return note;
      },
    }),
  );
  if (prepared.kind === 'nothing-to-do') {
    const code = await finishWithNothingToDo(
      context,
      job.baseConfig.ci,
      prepared.reason,
      io.stdout,
    );
    return { exitCode: code };
  }
  job.budget.budgetMs = prepared.run.config.gitlab.request_budget_sec * 1000;
  lifecycle.explainWith(cancelExplainer(job, prepared.run));
  // the run's own modules load once the first note is out
  const { carryOutJob } = await import('./carry-out.ts');
  return carryOutJob(prepared.run, {
    services: {
      shell: job.shell,
      clock: job.clock,
      ...(services.createLlm ? { createLlm: services.createLlm } : {}),
      ...(services.observers ? { observers: services.observers } : {}),
      write: (text) => io.stdout.write(text),
    },
    logger: job.logger,
    redactor: job.redactor,
    stdout: io.stdout,
    lifecycle,
    notePosted: () => void job.releaseLogs(),
  });
}

/** How the job finds out, after a termination signal, who or what stopped it (./cancel-cause.ts). */
function cancelExplainer(job: Job, run: PreparedRun): CancelExplainer {
  const { context } = job;
  const target = run.request.target;
  const since = context.pipeline.createdAt ?? context.job.startedAt ?? job.openedAt;
  return () =>
    explainCancel({
      gitlab: run.gitlab,
      project: run.project.id,
      on: target.kind === 'none' ? undefined : { type: target.kind, iid: target.iid },
      pipelineId: context.pipeline.id,
      jobId: context.job.id,
      timeoutSeconds: context.job.timeoutSeconds,
      startedAt: context.job.startedAt,
      since,
      prefix: run.config.trigger.command_prefix,
      botId: run.bot.id,
      now: Date.now,
      logger: job.logger,
    });
}

/**
 * A job that failed: the requester hears of it unless the run's note already
 * told them (src/ci/early-failure.ts). Without a signal the error goes on to
 * the CLI (one line and a hint, its exit code); after one the job ends with
 * 128 + the signal.
 */
async function failedJob(job: Job, io: CiStepIo, error: unknown): Promise<CarriedOut> {
  const { lifecycle } = job;
  const exitCode = lifecycle.exitCode(exitCodeFor(error));
  if (!alreadyReported(error)) {
    const { reportEarlyFailure } = await import('./early-failure.ts');
    await reportEarlyFailure({
      context: job.context,
      payload: job.payload,
      gitlab: job.gitlab,
      config: job.baseConfig,
      redactor: job.redactor,
      logger: job.logger,
      error,
      exitCode,
      cancelled: lifecycle.terminatedBy !== undefined,
      ...(job.firstNote ? { firstNote: job.firstNote } : {}),
    });
  }
  if (!lifecycle.terminatedBy) {
    lifecycle.close(exitCode);
    throw error;
  }
  io.stderr.write(`mr-agent: ${describeError(error).message}\n`);
  return { exitCode: lifecycle.close(exitCode) };
}

/**
 * The run path of `mr-agent ci` (loaded only when there may be work): with
 * the job's services (src/ci/services.ts), prepares the run (request, checks,
 * configuration, checkout) and carries out the step, all inside the run's
 * lifecycle (signals, grace period). A failure before the run's note exists
 * still reaches the requester. `mr-agent demo` runs its CI job through here too.
 */
export async function runCiJob(
  services: JobServices,
  payload: CommandRequest | undefined,
): Promise<CarriedOut> {
  const job = await openJob(services, payload);
  try {
    const carried = await prepareAndCarryOut(job, services.io, services.overrides);
    return { ...carried, exitCode: job.lifecycle.close(carried.exitCode) };
  } catch (error) {
    return failedJob(job, services.io, error);
  } finally {
    job.unlisten();
    await services.flushLogs();
  }
}
