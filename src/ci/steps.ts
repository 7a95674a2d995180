import { Writable } from 'node:stream';
import { loadConfig } from '../config/load.ts';
import type { Config } from '../config/options.ts';
import { createGitLabClient } from '../gitlab/gitbeaker-adapter.ts';
import type { GitLabPort } from '../core/gitlab-port.ts';
import { createLogger, newTraceId, type Logger } from '../log/logger.ts';
import { Redactor } from '../log/redact.ts';
import { systemClock, type Clock } from '../core/clock.ts';
import { ExecaShell } from '../shell/execa-shell.ts';
import { describeError } from '../errors/catalog.ts';
import { exitCodeFor } from '../errors/exit-code.ts';
import { guardGitLab, RequestBudget } from '../gitlab/request-budget.ts';
import { alreadyReported, RunLifecycle } from '../run/lifecycle.ts';
import type { Shell } from '../core/shell-port.ts';
import type { CommandRequest } from '../trigger/note-rules.ts';
import type { CiContext } from './context.ts';
import { finishWithNothingToDo } from './nothing-to-do.ts';
import { carryOutJob, type CarriedOut } from './carry-out.ts';
import { reportEarlyFailure } from './early-failure.ts';
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

/** The job's GitLab client: every call bounded by the request budget (gitlab.request_budget_sec). */
function jobGitLab(
  context: CiContext,
  config: Config,
  token: string,
  services: CiServices,
  ports: { logger: Logger; clock: Clock },
): { gitlab: GitLabPort; budget: RequestBudget } {
  const client = (services.createGitLab ?? createGitLabClient)({
    url: config.gitlab.url || context.gitlab.apiUrl,
    token,
    ...ports,
  });
  const budget = new RequestBudget(config.gitlab.request_budget_sec * 1000);
  return { gitlab: guardGitLab(client, { budget }), budget };
}

/**
 * The run path of `mr-agent ci` (loaded only when there may be work):
 * resolves the named secrets, sets up logging with redaction and the GitLab
 * client, prepares the run (request, checks, configuration, checkout) and
 * carries out the step, all inside the run's lifecycle (signals, grace
 * period). A failure before the run's note exists still reaches the
 * requester (src/ci/early-failure.ts). `mr-agent demo` runs its CI job
 * through here too.
 */
export async function runCiJob(
  context: CiContext,
  payload: CommandRequest | undefined,
  io: CiStepIo,
  services: CiServices = {},
): Promise<CarriedOut> {
  const env = withNamedSecrets(io.env);
  const sets = services.sets ?? [];
  const { config: baseConfig } = await loadConfig({ env, file: null, sets });
  const redactor = services.redactor ?? new Redactor();
  redactor.addFromEnv(env, [...baseConfig.secrets.variables, ...secretVariableNames(io.env)]);
  const traceId = newTraceId({
    pipelineId: String(context.pipeline.id),
    jobId: String(context.job.id),
  });
  const logger = services.logger ?? ciLogger(io, baseConfig, traceId, redactor);
  const token = jobGitLabToken(baseConfig, io.env);
  const clock = services.clock ?? systemClock;
  const { gitlab, budget } = jobGitLab(context, baseConfig, token, services, { logger, clock });
  const shell = services.shell ?? new ExecaShell();
  const lifecycle = new RunLifecycle({
    onSignal: io.onSignal,
    logger,
    graceMs: services.graceMs,
    exit: io.exit,
  });
  try {
    const prepared = await lifecycle.beforeRun(
      prepareRun(context, payload, {
        env,
        baseConfig,
        gitlab,
        shell,
        logger,
        redactor,
        sets,
        ...(services.onChecks ? { onChecks: services.onChecks } : {}),
      }),
    );
    if (prepared.kind === 'nothing-to-do') {
      const code = await finishWithNothingToDo(context, baseConfig.ci, prepared.reason, io.stdout);
      return { exitCode: lifecycle.close(code) };
    }
    budget.budgetMs = prepared.run.config.gitlab.request_budget_sec * 1000;
    const carried = await carryOutJob(prepared.run, {
      services: {
        shell,
        clock,
        ...(services.createLlm ? { createLlm: services.createLlm } : {}),
        ...(services.observers ? { observers: services.observers } : {}),
        write: (text) => io.stdout.write(text),
      },
      logger,
      redactor,
      stdout: io.stdout,
      lifecycle,
    });
    return { ...carried, exitCode: lifecycle.close(carried.exitCode) };
  } catch (error) {
    const exitCode = lifecycle.exitCode(exitCodeFor(error));
    if (!alreadyReported(error)) {
      await reportEarlyFailure({
        context,
        payload,
        gitlab,
        config: baseConfig,
        redactor,
        logger,
        error,
        exitCode,
      });
    }
    if (!lifecycle.terminatedBy) {
      lifecycle.close(exitCode);
      throw error;
    }
    io.stderr.write(`mr-agent: ${describeError(error).message}\n`);
    return { exitCode: lifecycle.close(exitCode) };
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
