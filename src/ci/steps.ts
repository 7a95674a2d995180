import { Writable } from 'node:stream';
import { configStages, type ConfigStages } from '../config/load.ts';
import type { Config } from '../config/options.ts';
import { createGitLabClient } from '../gitlab/gitbeaker-adapter.ts';
import type { GitLabPort } from '../core/gitlab-port.ts';
import { createLogger, newTraceId, type Logger } from '../log/logger.ts';
import { Redactor } from '../log/redact.ts';
import { systemClock, type Clock } from '../core/clock.ts';
import { ExecaShell } from '../shell/execa-shell.ts';
import type { Shell } from '../core/shell-port.ts';
import type { CommandRequest } from '../trigger/note-rules.ts';
import type { CiContext } from './context.ts';
import { finishWithNothingToDo } from './nothing-to-do.ts';
import { carryOutJob, type CarriedOut } from './carry-out.ts';
import { prepareRun, type PrepareDeps } from './prepare.ts';
import type { RunObservers, SessionServices } from './session.ts';
import { jobGitLabToken, secretVariableNames, withNamedSecrets } from './secrets.ts';

export interface CiStepIo {
  env: Readonly<Record<string, string | undefined>>;
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  /** Registers a SIGTERM/SIGINT handler; returns a function that removes it. */
  onSignal?(handler: (signal: string) => void): () => void;
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
  /** After a termination signal, the longest wait for the final state. */
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

/**
 * The run path of `mr-agent ci` (loaded only when there may be work):
 * resolves the named secrets, sets up logging with redaction and the GitLab
 * client, prepares the run (request, checks, configuration, checkout) and
 * carries out the step. `mr-agent demo` runs its CI job through here too.
 */
export async function runCiJob(
  context: CiContext,
  payload: CommandRequest | undefined,
  io: CiStepIo,
  services: CiServices = {},
): Promise<CarriedOut> {
  const env = withNamedSecrets(io.env);
  const sets = services.sets ?? [];
  const config = services.config ?? configStages({ env, sets });
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
  const gitlab = (services.createGitLab ?? createGitLabClient)({
    url: baseConfig.gitlab.url || context.gitlab.apiUrl,
    token,
    logger,
    clock,
  });
  const shell = services.shell ?? new ExecaShell();
  const prepared = await prepareRun(context, payload, {
    env,
    config,
    gitlab,
    shell,
    logger,
    redactor,
    ...(services.onChecks ? { onChecks: services.onChecks } : {}),
  });
  if (prepared.kind === 'nothing-to-do') {
    return {
      exitCode: await finishWithNothingToDo(context, baseConfig.ci, prepared.reason, io.stdout),
    };
  }
  return carryOutJob(prepared.run, {
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
    ...(io.onSignal ? { onSignal: io.onSignal } : {}),
    ...(services.graceMs !== undefined ? { graceMs: services.graceMs } : {}),
  });
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
