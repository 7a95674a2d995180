import { Writable } from 'node:stream';
import { loadConfig } from '../config/load.ts';
import type { Config } from '../config/options.ts';
import { ConfigError, UsageError } from '../errors/errors.ts';
import { createGitLabClient } from '../gitlab/gitbeaker-adapter.ts';
import type { GitLabPort } from '../gitlab/port.ts';
import { createLogger, newTraceId, type Logger } from '../log/logger.ts';
import { Redactor } from '../log/redact.ts';
import { systemClock, type Clock } from '../run/clock.ts';
import { ExecaShell } from '../shell/execa-shell.ts';
import type { Shell } from '../shell/port.ts';
import type { CommandRequest } from '../trigger/note-rules.ts';
import type { CiContext } from './context.ts';
import { finishWithNothingToDo } from './nothing-to-do.ts';
import { prepareRun, type PreparedRun } from './prepare.ts';
import { secretVariableNames, withNamedSecrets } from './secrets.ts';

export interface CiStepIo {
  env: Readonly<Record<string, string | undefined>>;
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/** What the run path of `mr-agent ci` uses from outside; tests swap pieces. */
export interface CiServices {
  shell?: Shell;
  clock?: Clock;
  createGitLab?(options: { url: string; token: string; logger: Logger; clock: Clock }): GitLabPort;
}

function ciLogger(io: CiStepIo, config: Config, context: CiContext, redactor: Redactor): Logger {
  const format =
    config.log.format === 'auto' ? (io.env.CI === 'true' ? 'json' : 'text') : config.log.format;
  return createLogger({
    level: config.log.level,
    format,
    traceId: newTraceId({ pipelineId: String(context.pipeline.id), jobId: String(context.job.id) }),
    redactor,
    stream: new Writable({
      write(chunk: Buffer, _encoding, done) {
        io.stderr.write(chunk.toString('utf8'));
        done();
      },
    }),
  });
}

function describeRequest(run: PreparedRun): string {
  const target = run.request.target;
  const on =
    target.kind === 'none'
      ? `branch ${run.context.ref ?? run.project.defaultBranch}`
      : `${target.kind === 'merge_request' ? '!' : '#'}${target.iid}`;
  return `${run.request.command} on ${on} (${run.request.source})`;
}

/** Carries out the step. The run orchestrator is not part of this build yet: say so. */
async function carryOut(run: PreparedRun): Promise<number> {
  throw new UsageError(
    `the agent run is not part of this build yet: the request was accepted (${describeRequest(run)}) but nothing was done`,
    {
      where: `mr-agent ci --step ${run.context.step}`,
      hint: 'this build carries the CI/CD component, the request handling and the in-job checks; the run orchestrator lands separately.',
    },
  );
}

/**
 * The run path of `mr-agent ci` (loaded only when there may be work):
 * resolves the named secrets, sets up logging with redaction and the GitLab
 * client, prepares the run (request, checks, configuration, checkout) and
 * carries out the step.
 */
export async function runCiStep(
  context: CiContext,
  payload: CommandRequest | undefined,
  io: CiStepIo,
  services: CiServices = {},
): Promise<number> {
  const env = withNamedSecrets(io.env);
  const { config: baseConfig } = await loadConfig({ env, file: null });
  const redactor = new Redactor();
  redactor.addFromEnv(env, [...baseConfig.secrets.variables, ...secretVariableNames(io.env)]);
  const logger = ciLogger(io, baseConfig, context, redactor);
  const token = baseConfig.gitlab.token;
  if (!token) {
    throw new ConfigError('no GitLab token for the agent', {
      where: io.env.MR_AGENT_GITLAB_TOKEN_VAR || 'MR_AGENT_GITLAB_TOKEN',
      hint: 'store a token with the `api` and `write_repository` scopes as a masked CI/CD variable and name it in the `gitlab_token_variable` input.',
    });
  }
  const clock = services.clock ?? systemClock;
  const gitlab = (services.createGitLab ?? createGitLabClient)({
    url: baseConfig.gitlab.url || context.gitlab.apiUrl,
    token,
    logger,
    clock,
  });
  const prepared = await prepareRun(context, payload, {
    env,
    baseConfig,
    gitlab,
    shell: services.shell ?? new ExecaShell(),
    logger,
    redactor,
  });
  if (prepared.kind === 'nothing-to-do') {
    return finishWithNothingToDo(context, baseConfig.ci, prepared.reason, io.stdout);
  }
  return carryOut(prepared.run);
}
