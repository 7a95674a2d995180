import { Writable } from 'node:stream';
import type { ConfigStages } from '../config/load.ts';
import type { Config } from '../config/options.ts';
import { createGitLabClient } from '../gitlab/gitbeaker-adapter.ts';
import type { GitLabPort } from '../core/gitlab-port.ts';
import { createLogger, newTraceId, type Logger } from '../log/logger.ts';
import { Redactor } from '../log/redact.ts';
import { systemClock, type Clock } from '../core/clock.ts';
import { lazyExecaShell } from '../shell/lazy-shell.ts';
import { describeError } from '../errors/catalog.ts';
import { exitCodeFor } from '../errors/exit-code.ts';
import { guardGitLab, RequestBudget } from '../gitlab/request-budget.ts';
import { alreadyReported, RunLifecycle } from '../run/lifecycle.ts';
import type { Shell } from '../core/shell-port.ts';
import type { CommandRequest } from '../commands/note-rules.ts';
import type { CiContext } from './context.ts';
import { finishWithNothingToDo } from './nothing-to-do.ts';
import { carryOutJob, type CarriedOut } from './carry-out.ts';
import { reportEarlyFailure } from './early-failure.ts';
import { jobConfigStages } from './job-config.ts';
import { prepareRun, type PrepareDeps } from './prepare.ts';
import type { RunObservers } from '../run/compose.ts';
import type { SessionServices } from './session.ts';
import { jobGitLabToken, secretVariableNames, withNamedSecrets } from './secrets.ts';

export interface CiStepIo {
  env: Readonly<Record<string, string | undefined>>;
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  /** Registers a SIGTERM/SIGINT/SIGHUP handler; returns a function that removes it. */
  onSignal?(handler: (signal: string) => void): () => void;
  /** Ends the process at once (after a termination signal, once the run's end is written). */
  exit?(code: number): void;
}

/** What the run path of `mr-agent ci` uses from outside; tests swap pieces. */
export interface CiServices {
  shell?: Shell;
  clock?: Clock;
  createGitLab?(options: { url: string; token: string; logger: Logger; clock: Clock }): GitLabPort;
  createLlm?: SessionServices['createLlm'];
  /** The job's logger and redactor (default: JSON/text lines on stderr, redacting the secrets). */
  logger?: Logger;
  redactor?: Redactor;
  /** Configuration overrides (`key=value`), above every other source. */
  sets?: readonly string[];
  /** The job's configuration sources, when the caller already read them (then `sets` is unused). */
  config?: ConfigStages;
  /** Watch or wrap parts of the run (the demo narrates it). */
  observers?: RunObservers;
  onChecks?: PrepareDeps['onChecks'];
  /** After a termination signal, the longest time until the job ends (default 8 s). */
  graceMs?: number;
}

function ciLogger(io: CiStepIo, config: Config, traceId: string, redactor: Redactor): Logger {
  const format =
    config.log.format === 'auto' ? (io.env.CI === 'true' ? 'json' : 'text') : config.log.format;
  return createLogger({
    level: config.log.level,
    format,
    traceId,
    redactor,
    stream: new Writable({
      write(chunk: Buffer, _encoding, done) {
        io.stderr.write(chunk.toString('utf8'));
        done();
      },
    }),
  });
}

/** What every part of the job shares: configuration from the environment, logging, GitLab, lifecycle. */
interface Job {
  context: CiContext;
  payload: CommandRequest | undefined;
  env: Readonly<Record<string, string | undefined>>;
  sets: readonly string[];
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
}

async function openJob(
  context: CiContext,
  payload: CommandRequest | undefined,
  io: CiStepIo,
  services: CiServices,
): Promise<Job> {
  const env = withNamedSecrets(io.env);
  const sets = services.sets ?? [];
  const config = services.config ?? jobConfigStages({ env, sets });
  const baseConfig = config.base;
  const redactor = services.redactor ?? new Redactor();
  redactor.addFromEnv(env, [...baseConfig.secrets.variables, ...secretVariableNames(io.env)]);
  const traceId = newTraceId({
    pipelineId: String(context.pipeline.id),
    jobId: String(context.job.id),
  });
  const logger = services.logger ?? ciLogger(io, baseConfig, traceId, redactor);
  const token = jobGitLabToken(baseConfig, io.env);
  const clock = services.clock ?? systemClock;
  const client = (services.createGitLab ?? createGitLabClient)({
    url: baseConfig.gitlab.url || context.gitlab.apiUrl,
    token,
    logger,
    clock,
  });
  const budget = new RequestBudget(baseConfig.gitlab.request_budget_sec * 1000);
  const lifecycle = new RunLifecycle({
    onSignal: io.onSignal,
    logger,
    graceMs: services.graceMs,
    exit: io.exit,
  });
  const shell = services.shell ?? lazyExecaShell();
  const gitlab = guardGitLab(client, { budget });
  return {
    context,
    payload,
    env,
    sets,
    config,
    baseConfig,
    redactor,
    logger,
    clock,
    shell,
    gitlab,
    budget,
    lifecycle,
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
 * The run path of `mr-agent ci` (loaded only when there may be work):
 * resolves the named secrets, sets up logging with redaction and the GitLab
 * client, prepares the run (request, checks, configuration, checkout) and
 * carries out the step, all inside the run's lifecycle (signals, grace
 * period). A failure before the run's note exists still reaches the
 * requester. `mr-agent demo` runs its CI job through here too.
 */
export async function runCiJob(
  context: CiContext,
  payload: CommandRequest | undefined,
  io: CiStepIo,
  services: CiServices = {},
): Promise<CarriedOut> {
  const job = await openJob(context, payload, io, services);
  try {
    const carried = await prepareAndCarryOut(job, io, services);
    return { ...carried, exitCode: job.lifecycle.close(carried.exitCode) };
  } catch (error) {
    return failedJob(job, io, error);
  }
}

/** `runCiJob`, as the job's exit code. */
export async function runCiStep(
  context: CiContext,
  payload: CommandRequest | undefined,
  io: CiStepIo,
  services: CiServices = {},
): Promise<number> {
  return (await runCiJob(context, payload, io, services)).exitCode;
}
