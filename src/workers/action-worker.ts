import type { Clock } from '../core/clock.ts';
import type { CommandIsolation } from '../core/isolation.ts';
import type { ActionWorker } from '../core/ports.ts';
import type { Shell } from '../core/shell-port.ts';
import type { Logger } from '../log/logger.ts';
import { checkWorkerAvailable } from './availability.ts';
import { giveCredentialFiles } from './credential-files.ts';
import { createCliWorker } from './cli-worker.ts';
import { workerCredentials, workerEnv } from './env.ts';
import type { ExternalWorkerKind, SandboxMode, Worker } from './port.ts';
import { CLI_WORKERS, resolveSandbox } from './registry.ts';

export interface ActionWorkerOptions {
  kind: ExternalWorkerKind;
  /** The job's or terminal's environment: the worker sees its allow-list plus its own credential. */
  hostEnv: Readonly<Record<string, string | undefined>>;
  /** Never passed to the worker: the variable of the LLM key, and the values of the GitLab token and the LLM key. */
  withheld: { variables: readonly string[]; values: readonly string[] };
  /** `runner.worker.sandbox` */
  sandbox: 'auto' | SandboxMode;
  /** `runner.worker.max_run_time_sec` */
  maxRunTimeSec: number;
  shell: Shell;
  clock: Clock;
  logger: Logger;
  /** Who runs the CLI (docs/security.md); absent: the agent's own user. */
  isolation?: CommandIsolation;
}

/**
 * The external coding CLI of `runner.worker.kind` as the run's worker:
 * checked before anything is spent (on PATH, a credential visible
 * to it), then run once per planned action through the shell port with the
 * minimal worker environment — the allow-listed host variables plus its own
 * credential variable (`CODEX_API_KEY`, `ANTHROPIC_API_KEY`,
 * `GEMINI_API_KEY` …), never the GitLab token, `CI_JOB_TOKEN` or the LLM key.
 * Returns the worker and the credential values (for the redactor).
 */
export async function createActionWorker(
  options: ActionWorkerOptions,
): Promise<{ worker: ActionWorker; credentials: string[] }> {
  const credentials = workerCredentials(CLI_WORKERS[options.kind], options.hostEnv, {
    withheld: options.withheld.variables,
    secrets: options.withheld.values,
  });
  const env = workerEnv(options.hostEnv, credentials);
  const cli = await checkedCliWorker({ ...options, env });
  const worker: ActionWorker = {
    kind: options.kind,
    run: ({ prompt, repoDir, signal }) =>
      cli.runWorker({
        prompt,
        repoDir,
        env,
        maxRunTimeSec: options.maxRunTimeSec,
        ...(signal ? { signal } : {}),
      }),
  };
  return { worker, credentials: Object.values(credentials) };
}

export interface CheckedCliWorkerOptions extends Pick<
  ActionWorkerOptions,
  'kind' | 'hostEnv' | 'sandbox' | 'shell' | 'clock' | 'logger' | 'isolation'
> {
  /** The worker's complete environment (`workerEnv`), where its credential must be visible. */
  env: Record<string, string>;
  /** SIGTERM → SIGKILL delay (default 5 s). */
  killAfterMs?: number;
  /** Characters of output kept per run (default 64,000). */
  maxRawOutputChars?: number;
}

/**
 * The coding CLI of `kind`, for the run pipeline's actions and for
 * AgentRunner mode alike: checked before anything is spent (on PATH, a
 * credential visible in `env`, else a ConfigError naming what is missing),
 * its sandbox resolved, its login files given to the command user when the
 * commands run as another user.
 */
export async function checkedCliWorker(options: CheckedCliWorkerOptions): Promise<Worker> {
  const spec = CLI_WORKERS[options.kind];
  const found = await checkWorkerAvailable(spec, options.env);
  const sandbox = resolveSandbox(options.sandbox, options.hostEnv);
  options.logger.info('worker available', {
    worker: options.kind,
    executable: found.executable,
    credential: found.credential,
    sandbox,
  });
  // the CLI runs as the command user, with its private home: its login files go there
  if (options.isolation?.kind === 'separate-user')
    await giveCredentialFiles(
      spec.credentialFiles(options.env),
      options.env.HOME,
      options.isolation.user,
    );
  return createCliWorker(spec, {
    shell: options.shell,
    clock: options.clock,
    logger: options.logger,
    sandbox,
    ...(options.isolation ? { isolation: options.isolation } : {}),
    ...(options.killAfterMs !== undefined ? { killAfterMs: options.killAfterMs } : {}),
    ...(options.maxRawOutputChars !== undefined
      ? { maxRawOutputChars: options.maxRawOutputChars }
      : {}),
  });
}
