/**
 * The CI job of the demo: `mr-agent ci` itself (src/ci/steps.ts
 * `runCiJob`), given the environment a GitLab runner gives the job of the
 * triggered pipeline — start checks (token scope, bot user, every triggering
 * user's role, configuration from the default branch), the checkout on the
 * merge request's head, earlier runs, the progress note on the merge
 * request, then the run (gather → plan → environment → execute ⇄ reflect →
 * review → verify → deliver) with GitLab as request source, note target and
 * remote. The demo only watches: it narrates through the run's observers.
 */
import type { Config } from '../config/options.ts';
import { parseCiContext } from '../ci/context.ts';
import type { RunObservers } from '../run/compose.ts';
import { jobServices } from '../ci/services.ts';
import { runCiJob } from '../ci/steps.ts';
import type { StartCheckResult } from '../gitlab/checks.ts';
import type { Logger } from '../log/logger.ts';
import type { Redactor } from '../log/redact.ts';
import type { Clock } from '../core/clock.ts';
import type { RunOutcome } from '../core/outcome.ts';
import type { Reporting } from '../run/reporting/index.ts';
import { sandboxEnv } from '../shell/sandbox-env.ts';

export interface JobInput {
  gitlabUrl: string;
  botToken: string;
  project: { id: number; path: string; defaultBranch: string };
  /** The triggered pipeline: its variables (`MR_AGENT_*`) are the job's. */
  pipeline: {
    id: number;
    ref: string;
    source: string;
    userId: number;
    variables: Readonly<Record<string, string>>;
  };
  job: { id: number; url: string };
  /** CI/CD variables of the project (the model's URL and key …). */
  projectVariables: Readonly<Record<string, string>>;
  /** The checkout of the merge request's source branch (CI_PROJECT_DIR). */
  checkoutDir: string;
  /** Host variables (PATH, HOME …); the job sees only the ones commands may see. */
  hostEnv: Readonly<Record<string, string | undefined>>;
  /** Further configuration (`--set key=value`). */
  sets?: readonly string[];
}

export interface JobDeps {
  clock: Clock;
  logger: Logger;
  redactor: Redactor;
  /** Narration of the run's model calls, tools, notes and setup. */
  observers?: RunObservers;
  onChecks?: (checks: StartCheckResult) => void;
  /** Cancels the run (Ctrl-C); it still writes its final state. */
  signal?: AbortSignal;
}

export interface JobResult {
  exitCode: number;
  outcome: RunOutcome;
  config: Config;
  reporting: Reporting;
  taskId: string;
}

/** What a GitLab runner sets for the job of the triggered pipeline. */
export function jobEnvironment(input: JobInput): Record<string, string> {
  const host = sandboxEnv(input.hostEnv);
  delete host.CI;
  return {
    ...host,
    CI_API_V4_URL: `${input.gitlabUrl}/api/v4`,
    CI_SERVER_URL: input.gitlabUrl,
    CI_PROJECT_ID: String(input.project.id),
    CI_PROJECT_PATH: input.project.path,
    CI_PROJECT_DIR: input.checkoutDir,
    CI_DEFAULT_BRANCH: input.project.defaultBranch,
    CI_COMMIT_REF_NAME: input.pipeline.ref,
    CI_PIPELINE_ID: String(input.pipeline.id),
    CI_PIPELINE_SOURCE: input.pipeline.source,
    CI_JOB_ID: String(input.job.id),
    CI_JOB_URL: input.job.url,
    GITLAB_USER_ID: String(input.pipeline.userId),
    MR_AGENT_GITLAB_TOKEN: input.botToken,
    ...input.projectVariables,
    ...input.pipeline.variables,
  };
}

/** Runs the agent job for a merge request comment. Never throws for run failures. */
export async function runAgentJob(input: JobInput, deps: JobDeps): Promise<JobResult> {
  const env = jobEnvironment(input);
  const context = parseCiContext(env, 'all');
  const signal = deps.signal;
  const job = jobServices(
    context,
    {
      env,
      // the job log: the demo narrates instead
      stdout: { write: () => true },
      stderr: { write: () => true },
      ...(signal
        ? {
            onSignal: (handler: (name: string) => void) => {
              const listener = () => handler('SIGINT');
              // stopped while the stage was being set: the job stops at its start
              if (signal.aborted) {
                queueMicrotask(listener);
                return () => undefined;
              }
              signal.addEventListener('abort', listener, { once: true });
              return () => signal.removeEventListener('abort', listener);
            },
          }
        : {}),
    },
    {
      clock: deps.clock,
      logger: deps.logger,
      redactor: deps.redactor,
      sets: input.sets ?? [],
      ...(deps.observers ? { observers: deps.observers } : {}),
      ...(deps.onChecks ? { onChecks: deps.onChecks } : {}),
    },
  );
  const carried = await runCiJob(job, undefined);
  if (!carried.run)
    throw new Error('internal: the demo job ended without a run (the request was not accepted)');
  const { outcome, session } = carried.run;
  return {
    exitCode: carried.exitCode,
    outcome,
    config: session.deps.config,
    reporting: session.reporting,
    taskId: session.task.id,
  };
}
