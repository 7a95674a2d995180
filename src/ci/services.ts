import type { ConfigStages } from '../config/load.ts';
import type { Config } from '../config/options.ts';
import type { GitLabPort } from '../core/gitlab-port.ts';
import type { Logger } from '../log/logger.ts';
import { Redactor } from '../log/redact.ts';
import { systemClock, type Clock } from '../core/clock.ts';
import { createHeldLogger } from '../log/lazy-logger.ts';
import { resolveLogFormat } from '../log/log-format.ts';
import { textSink } from '../log/text-sink.ts';
import { newTraceId } from '../log/trace-id.ts';
import type { Shell } from '../core/shell-port.ts';
import type { RunObservers } from '../run/compose.ts';
import type { PrepareDeps } from './prepare.ts';
import type { SessionServices } from './session.ts';
import type { CiContext } from './context.ts';
import { jobConfigStages } from './job-config.ts';
import { jobGitLabToken, secretVariableNames, withNamedSecrets } from './secrets.ts';
import { withStartReadsAsked } from './start-reads.ts';

export interface CiStepIo {
  env: Readonly<Record<string, string | undefined>>;
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  /** Registers a SIGTERM/SIGINT/SIGHUP handler; returns a function that removes it. */
  onSignal?(handler: (signal: string) => void): () => void;
  /** Ends the process at once (after a termination signal, once the run's end is written). */
  exit?(code: number): void;
}

/** What the run path of `mr-agent ci` uses from outside; tests and the demo swap pieces. */
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

/** Logging and redaction of one job. */
export interface JobLogging {
  logger: Logger;
  redactor: Redactor;
  /**
   * Lets the job's log lines through: until then they are kept, in order,
   * and the logging library is not loaded (it would delay the first progress
   * note). Resolves once the lines logged so far are written.
   */
  release(): Promise<void>;
}

/**
 * The services of one `mr-agent ci` job, each built once, here: the
 * environment with its named secrets resolved, the configuration sources,
 * logging with redaction and the GitLab client. A comment that is not a
 * command ends the job before the API client is needed, so gitbeaker loads
 * on first use (the logging modules are small, and winston itself waits for
 * the first note); a reply in a thread and the run then share them.
 */
export interface JobServices {
  context: CiContext;
  io: CiStepIo;
  /** The job environment, named secrets already resolved. */
  env: Readonly<Record<string, string | undefined>>;
  sets: readonly string[];
  /** The configuration resolved once: `base` before the default branch's file, `final(file)` with it. */
  config: ConfigStages;
  overrides: CiServices;
  logging(): Promise<JobLogging>;
  /** Writes every log line kept so far (when logging was opened); the job calls it as it ends. */
  flushLogs(): Promise<void>;
  /** The job's one GitLab client (unguarded: the run path bounds it by its request budget). */
  gitlab(): Promise<GitLabPort>;
}

function jobLogger(io: CiStepIo, config: Config, traceId: string, redactor: Redactor) {
  return createHeldLogger(
    {
      level: config.log.level,
      format: resolveLogFormat(config.log.format, io.env),
      traceId,
      redactor,
      stream: textSink(io.stderr),
    },
    // a first note takes a fraction of this; a start that takes longer is worth seeing in the log
    { atMostMs: 2000 },
  );
}

async function openLogging(services: JobServices): Promise<JobLogging> {
  const { context, io, overrides } = services;
  const base = services.config.base;
  const redactor = overrides.redactor ?? new Redactor();
  redactor.addFromEnv(services.env, [...base.secrets.variables, ...secretVariableNames(io.env)]);
  const traceId = newTraceId({
    pipelineId: String(context.pipeline.id),
    jobId: String(context.job.id),
  });
  if (overrides.logger) return { logger: overrides.logger, redactor, release: async () => {} };
  const { logger, release } = jobLogger(io, base, traceId, redactor);
  return { logger, redactor, release };
}

async function openGitLab(services: JobServices): Promise<GitLabPort> {
  const base = services.config.base;
  const token = jobGitLabToken(base, services.io.env);
  const { logger } = await services.logging();
  const { createGitLabClient } = await import('../gitlab/gitbeaker-adapter.ts');
  const client = (services.overrides.createGitLab ?? createGitLabClient)({
    url: base.gitlab.url || services.context.gitlab.apiUrl,
    token,
    logger,
    clock: services.overrides.clock ?? systemClock,
  });
  return withStartReadsAsked(client, services.context);
}

/** Builds the job's services; the configuration sources are read here, once. */
export function jobServices(
  context: CiContext,
  io: CiStepIo,
  overrides: CiServices = {},
): JobServices {
  const env = withNamedSecrets(io.env);
  const sets = overrides.sets ?? [];
  let logging: Promise<JobLogging> | undefined;
  let gitlab: Promise<GitLabPort> | undefined;
  const services: JobServices = {
    context,
    io,
    env,
    sets,
    config: jobConfigStages({ env, sets }),
    overrides,
    logging: () => (logging ??= openLogging(services)),
    flushLogs: async () => {
      if (logging) await (await logging).release();
    },
    gitlab: () =>
      (gitlab ??= openGitLab(services).catch((error: unknown) => {
        gitlab = undefined;
        throw error;
      })),
  };
  return services;
}
