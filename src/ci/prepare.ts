import { loadConfig } from '../config/load.ts';
import type { Config } from '../config/options.ts';
import { ConfigError } from '../errors/errors.ts';
import { checkTriggeringUser, runStartChecks, type StartCheckResult } from '../gitlab/checks.ts';
import type { GitLabPort, GitLabUser, MergeRequest, Project } from '../core/gitlab-port.ts';
import type { Logger } from '../log/logger.ts';
import type { Redactor } from '../log/redact.ts';
import type { Shell } from '../core/shell-port.ts';
import { ACCESS_LEVEL_VALUES, accessLevelName } from '../trigger/access.ts';
import { dispatchCommand, type DispatchOutcome } from '../trigger/dispatch.ts';
import { bridgeGitLabFromPort } from '../trigger/gitlab-bridge.ts';
import type { CommandRequest } from '../trigger/note-rules.ts';
import { checkoutMergeRequest } from './checkout.ts';
import { usersToCheck, type CiContext } from './context.ts';
import { readHandoff } from './handoff.ts';
import { requestFromTrigger, type CiRequest } from './request.ts';
import { excludeAgentFolders } from './workspace.ts';

/** What a CI job has once it knows it may act: the request, GitLab and the final configuration. */
export interface PreparedRun {
  context: CiContext;
  request: CiRequest;
  /** defaults < `.mr-agent.yml` of the default branch < environment (M4). */
  config: Config;
  gitlab: GitLabPort;
  project: Project;
  bot: GitLabUser;
  mergeRequest: MergeRequest | undefined;
  /** The job environment with the named secrets resolved. */
  env: Readonly<Record<string, string | undefined>>;
}

export type Preparation =
  { kind: 'ready'; run: PreparedRun } | { kind: 'nothing-to-do'; reason: string };

export interface PrepareDeps {
  /** The job environment, named secrets already resolved (see `withNamedSecrets`). */
  env: Readonly<Record<string, string | undefined>>;
  /** Configuration from the environment alone (before the default branch's file is read). */
  baseConfig: Config;
  gitlab: GitLabPort;
  shell: Shell;
  logger: Logger;
  redactor: Redactor;
  /** Configuration overrides (`key=value`), above every other source. */
  sets?: readonly string[];
  /** Told the start checks' findings (the demo shows them). */
  onChecks?(checks: StartCheckResult): void;
}

/** The A3 request as the bridge's variables would have described it. */
function requestFromCommand(request: CommandRequest): CiRequest {
  return {
    source: 'note',
    command: request.command,
    task: request.instruction,
    target: { kind: request.target.kind, iid: request.target.iid },
    noteId: request.noteId,
    userId: request.user.id,
  };
}

function whyNot(outcome: Exclude<DispatchOutcome, { kind: 'started' }>, min: string): string {
  switch (outcome.kind) {
    case 'forbidden':
      return `not authorised: the commenter is ${accessLevelName(outcome.accessLevel)} on the project; commanding the agent needs ${min}`;
    case 'duplicate':
      return 'another job already claimed this comment';
    case 'already-running':
      return `an agent run is already active (pipeline ${outcome.pipeline.id}); replied in the thread`;
    case 'start-failed':
      return `the run could not start: ${outcome.message}`;
    default:
      return `answered \`${outcome.kind}\` in the thread`;
  }
}

/** A3: the bridge's API rules in the job: role check, 👀 claim, control verbs, "already running". */
async function claimPayloadCommand(
  context: CiContext,
  request: CommandRequest,
  deps: PrepareDeps,
): Promise<Preparation | CiRequest> {
  const own = { id: context.pipeline.id, status: 'running', ref: context.ref ?? request.ref };
  const outcome = await dispatchCommand(
    {
      gitlab: bridgeGitLabFromPort(deps.gitlab),
      logger: deps.logger,
      redactor: deps.redactor,
      minAccessLevel: ACCESS_LEVEL_VALUES[deps.baseConfig.trigger.min_access_level],
      prefix: deps.baseConfig.trigger.command_prefix,
      start: async () => own,
      excludePipelineId: context.pipeline.id,
    },
    request,
  );
  if (outcome.kind !== 'started') {
    return {
      kind: 'nothing-to-do',
      reason: whyNot(outcome, deps.baseConfig.trigger.min_access_level),
    };
  }
  return requestFromCommand(request);
}

async function requestOf(
  context: CiContext,
  payload: CommandRequest | undefined,
  deps: PrepareDeps,
): Promise<Preparation | CiRequest> {
  if (context.step === 'run') return (await readHandoff(context.projectDir)).request;
  if (payload) return claimPayloadCommand(context, payload, deps);
  const trigger = context.trigger;
  if (trigger.kind === 'note' || trigger.kind === 'manual') return requestFromTrigger(trigger);
  throw new ConfigError('a TRIGGER_PAYLOAD request reached the run without its decision', {
    where: 'TRIGGER_PAYLOAD',
  });
}

/** Puts the checkout on the merge request's head when the pipeline runs on another branch. */
async function mergeRequestCheckout(
  run: Omit<PreparedRun, 'mergeRequest'>,
  deps: PrepareDeps,
): Promise<MergeRequest | undefined> {
  const target = run.request.target;
  if (target.kind !== 'merge_request') return undefined;
  const mr = await run.gitlab.getMergeRequest(run.project.id, target.iid);
  const gitEnv: Record<string, string> = {};
  for (const name of ['PATH', 'HOME', 'GIT_SSL_CAINFO', 'SSL_CERT_FILE']) {
    const value = deps.env[name];
    if (value) gitEnv[name] = value;
  }
  const result = await checkoutMergeRequest(deps.shell, {
    projectDir: run.context.projectDir,
    currentRef: run.context.ref,
    mergeRequest: { iid: mr.iid, sourceBranch: mr.sourceBranch, isFork: mr.isFork },
    env: gitEnv,
  });
  if (result.changed) {
    deps.logger.info('checked out the merge request head', {
      mergeRequest: mr.iid,
      branch: result.branch,
      pipelineRef: run.context.ref,
    });
  }
  return mr;
}

/**
 * Everything between "the job started" and "the run starts" (M4, M5): the
 * request (A2 variables, A3 payload claimed like the bridge does, A4 variables,
 * or the plan job's hand-off), the token's scope, every triggering user's role,
 * `.mr-agent.yml` from the default branch, and a checkout of the merge
 * request's head.
 */
export async function prepareRun(
  context: CiContext,
  payload: CommandRequest | undefined,
  deps: PrepareDeps,
): Promise<Preparation> {
  const request = await requestOf(context, payload, deps);
  if ('kind' in request) return request;
  const minimum = deps.baseConfig.trigger.min_access_level;
  const checks = await runStartChecks({
    gitlab: deps.gitlab,
    project: context.gitlab.projectId,
    triggeredBy: request.userId,
    minimumAccessLevel: minimum,
  });
  deps.onChecks?.(checks);
  if (context.step !== 'run') {
    for (const userId of usersToCheck(context).filter((id) => id !== request.userId)) {
      await checkTriggeringUser(deps.gitlab, checks.project.id, userId, minimum);
    }
  }
  const { config } = await loadConfig({
    env: deps.env,
    file: checks.configFile,
    sets: deps.sets ?? [],
  });
  const partial = {
    context,
    request,
    config,
    gitlab: deps.gitlab,
    project: checks.project,
    bot: checks.bot,
    env: deps.env,
  };
  const mergeRequest = await mergeRequestCheckout(partial, deps);
  await excludeAgentFolders(context.projectDir);
  deps.logger.info('request accepted', {
    step: context.step,
    source: request.source,
    command: request.command,
    target: request.target,
    noteId: request.noteId,
  });
  return { kind: 'ready', run: { ...partial, mergeRequest } };
}
