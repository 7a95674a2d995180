import type { ConfigStages } from '../config/load.ts';
import type { Config } from '../config/options.ts';
import { ConfigError } from '../errors/errors.ts';
import { runStartChecks, type StartCheckResult } from '../gitlab/checks.ts';
import { jobReads, type JobReads } from '../gitlab/job-reads.ts';
import type { GitLabPort, GitLabUser, MergeRequest, Project } from '../core/gitlab-port.ts';
import type { Logger } from '../log/logger.ts';
import type { Redactor } from '../log/redact.ts';
import type { Shell } from '../core/shell-port.ts';
import { ACCESS_LEVEL, roleOf } from '../gitlab/access-levels.ts';
import type { DispatchOutcome } from '../commands/dispatch.ts';
import { bridgeGitLabFromPort } from '../commands/gitlab-bridge.ts';
import type { BridgeGitLab } from '../commands/bridge-port.ts';
import type { CommandRequest, CommandTarget } from '../commands/note-rules.ts';
import { checkoutMergeRequest } from './checkout.ts';
import { refuseConfidentialTarget } from './confidential.ts';
import { isRunVerb } from '../commands/verbs.ts';
import { usersToCheck, type CiContext } from './context.ts';
import { requestFromTrigger, type CiRequest } from './request.ts';
import { requesterOf, withRequester } from './requester.ts';
import { excludeAgentFolders } from './workspace.ts';

/** What a CI job has once it knows it may act: the request, GitLab and the final configuration. */
export interface PreparedRun {
  context: CiContext;
  request: CiRequest;
  /** defaults < `.mr-agent.yml` of the default branch < environment. */
  config: Config;
  gitlab: GitLabPort;
  /** The job's GitLab reads, each made once: the MR or issue, its threads, each member's role. */
  reads: JobReads;
  project: Project;
  bot: GitLabUser;
  mergeRequest: MergeRequest | undefined;
  /** The job environment with the named secrets resolved. */
  env: Readonly<Record<string, string | undefined>>;
  /** Keys the user-config API sent that it may not set (not applied; the note names them). */
  refusedUserSettings?: readonly string[];
  /** GitLab's version (`GET /version`), when it could be read: the note names what it lacks. */
  gitlabVersion?: string | undefined;
  /** The progress note posted while the checkout was made (./first-note.ts), for the run to adopt. */
  firstNote?: FirstNote | undefined;
}

/** A request the start checks accepted, before the merge request's head is checked out. */
export type AcceptedRun = Omit<PreparedRun, 'mergeRequest' | 'firstNote'>;

/** The progress note a job posted before its run was composed (./first-note.ts); the run adopts it. */
export interface FirstNote {
  noteId: string;
  taskId: string;
  title: string;
}

export type Preparation =
  { kind: 'ready'; run: PreparedRun } | { kind: 'nothing-to-do'; reason: string };

export interface PrepareDeps {
  /** The job environment, named secrets already resolved (see `withNamedSecrets`). */
  env: Readonly<Record<string, string | undefined>>;
  /** The job's configuration: `base` before the default branch's file, `final` with it. */
  config: ConfigStages;
  gitlab: GitLabPort;
  shell: Shell;
  logger: Logger;
  redactor: Redactor;
  /** Told the start checks' findings (the demo shows them). */
  onChecks?(checks: StartCheckResult): void;
  /**
   * Posts the run's first progress note once the request is accepted and
   * configured; it goes out while the merge request's head is checked out.
   */
  announce?(run: AcceptedRun): Promise<FirstNote | undefined>;
}

/** A TRIGGER_PAYLOAD request as the bridge's variables would have described it. */
function requestFromCommand(request: CommandRequest): CiRequest {
  return {
    source: 'note',
    command: request.command,
    task: request.instruction,
    target: { kind: request.target.kind, iid: request.target.iid },
    noteId: request.noteId,
    userId: request.user.id,
    username: request.user.username,
  };
}

function whyNot(
  outcome: Exclude<DispatchOutcome, { kind: 'started' | 'queued' }>,
  min: string,
): string {
  switch (outcome.kind) {
    case 'forbidden':
      return `not authorised: the commenter ${roleOf(outcome.accessLevel)} on the project; commanding the agent needs ${min}`;
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

/** `/agent status` in the job reads the MR's or issue's notes through the job's one listing. */
function statusReads(reads: JobReads): Pick<BridgeGitLab, 'listNotes' | 'targetWebUrl'> {
  const on = (target: CommandTarget) => ({ type: target.kind, iid: target.iid });
  return {
    listNotes: (_projectId, target) => reads.notes(on(target)),
    targetWebUrl: async (_projectId, target) =>
      (target.kind === 'merge_request'
        ? await reads.mergeRequest(target.iid)
        : await reads.issue(target.iid)
      ).webUrl,
  };
}

/** A TRIGGER_PAYLOAD comment gets the bridge's API rules in the job: role check, 👀 claim, control verbs, "already running". */
async function claimPayloadCommand(
  context: CiContext,
  request: CommandRequest,
  deps: PrepareDeps,
  reads: JobReads,
): Promise<Preparation | undefined> {
  const own = { id: context.pipeline.id, status: 'running', ref: context.ref ?? request.ref };
  const gitlab = bridgeGitLabFromPort(deps.gitlab);
  const base = deps.config.base;
  const [{ dispatchCommand }, { payloadTargetLock, notesReadUnderLock }] = await Promise.all([
    import('../commands/dispatch.ts'),
    import('./payload-lock.ts'),
  ]);
  const outcome = await dispatchCommand(
    {
      gitlab: {
        ...gitlab,
        accessLevel: (projectId, userId) =>
          projectId === reads.project
            ? reads.accessLevel(userId)
            : gitlab.accessLevel(projectId, userId),
        ...statusReads(reads),
        ...(isRunVerb(request.command) ? notesReadUnderLock(gitlab) : {}),
      },
      language: base.notes.language,
      logger: deps.logger,
      redactor: deps.redactor,
      minAccessLevel: ACCESS_LEVEL[base.trigger.min_access_level],
      prefix: base.trigger.command_prefix,
      start: async () => own,
      excludePipelineId: context.pipeline.id,
      targetLock: payloadTargetLock(gitlab, deps.logger),
      markStartedRun: true,
    },
    request,
  );
  // a follow-up after a run that is delivering is this job's run too (the reply said so)
  if (outcome.kind === 'started' || outcome.kind === 'queued') return undefined;
  return { kind: 'nothing-to-do', reason: whyNot(outcome, base.trigger.min_access_level) };
}

/** The request this job is asked to carry out, before anyone checked it. */
async function requestOf(
  context: CiContext,
  payload: CommandRequest | undefined,
): Promise<CiRequest> {
  if (context.step === 'run') {
    // the hand-off (and the plan's schema in it) is read by the run job only
    const { readHandoff } = await import('./handoff.ts');
    return (await readHandoff(context.projectDir)).request;
  }
  if (payload) return requestFromCommand(payload);
  const trigger = context.trigger;
  if (trigger.kind === 'note' || trigger.kind === 'manual') return requestFromTrigger(trigger);
  throw new ConfigError('a TRIGGER_PAYLOAD request reached the run without its decision', {
    where: 'TRIGGER_PAYLOAD',
  });
}

/**
 * Starts the reads the run will make anyway, alongside the start checks: the
 * merge request or issue and (unless the plan job already gathered) its
 * threads, which history and gather read. Nothing is posted before the checks.
 */
function prefetch(reads: JobReads, request: CiRequest, step: CiContext['step']): void {
  const target = request.target;
  if (target.kind === 'none') return;
  void (target.kind === 'merge_request' ? reads.mergeRequest(target.iid) : reads.issue(target.iid));
  if (step !== 'run') void reads.discussions({ type: target.kind, iid: target.iid });
}

/** Puts the checkout on the merge request's head when the pipeline runs on another branch. */
async function mergeRequestCheckout(
  run: Pick<PreparedRun, 'context' | 'request' | 'reads'>,
  deps: PrepareDeps,
): Promise<MergeRequest | undefined> {
  const target = run.request.target;
  if (target.kind !== 'merge_request') return undefined;
  const mr = await run.reads.mergeRequest(target.iid);
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
 * The start checks (token scope, every triggering user's role, `.mr-agent.yml`
 * of the default branch), their reads made at once; for a `TRIGGER_PAYLOAD`
 * comment alongside the bridge's own rules, which decide first.
 */
async function checked(
  context: CiContext,
  payload: CommandRequest | undefined,
  request: CiRequest,
  deps: PrepareDeps,
  reads: JobReads,
): Promise<Preparation | StartCheckResult> {
  const checks = () =>
    runStartChecks({
      gitlab: deps.gitlab,
      project: reads.project,
      triggeredBy: request.userId,
      alsoCheck: context.step === 'run' ? [] : usersToCheck(context),
      minimumAccessLevel: deps.config.base.trigger.min_access_level,
      accessLevel: reads.accessLevel,
      defaultBranchHint: context.gitlab.defaultBranch,
    });
  if (!payload || context.step === 'run') return checks();
  // a command that runs has its checks read while the claim is made; others need none
  const early = isRunVerb(payload.command) ? checks() : undefined;
  early?.catch(() => undefined);
  const refused = await claimPayloadCommand(context, payload, deps, reads);
  return refused ?? (await (early ?? checks()));
}

/**
 * GitLab's version, read once the first progress note is posted (or, when
 * the run posts it, while the checkout goes on). It only adds lines to the
 * progress note, so an instance that does not answer loses those lines
 * and nothing else.
 */
async function instanceVersion(deps: PrepareDeps): Promise<string | undefined> {
  if (!deps.gitlab.instanceVersion) return undefined;
  try {
    const version = await deps.gitlab.instanceVersion();
    deps.logger.info('GitLab instance', { version });
    return version;
  } catch (error) {
    deps.logger.warn('GitLab version unreadable; its requirements are not checked', {
      error: error instanceof Error ? error.message : String(error),
    });
    return undefined;
  }
}

/**
 * Everything between "the job started" and "the run starts": the
 * request (the bridge's variables, a TRIGGER_PAYLOAD claimed like the bridge
 * does, "Run pipeline" or API variables, or the plan job's hand-off), the token's scope, every triggering user's role,
 * `.mr-agent.yml` from the default branch, and a checkout of the merge
 * request's head. Independent reads run at once; each is made once per job
 * (`JobReads`), and the run reuses them.
 */
export async function prepareRun(
  context: CiContext,
  payload: CommandRequest | undefined,
  deps: PrepareDeps,
): Promise<Preparation> {
  const reads = jobReads(deps.gitlab, context.gitlab.projectId);
  const asked = await requestOf(context, payload);
  if (!payload || isRunVerb(payload.command)) prefetch(reads, asked, context.step);
  const checks = await checked(context, payload, asked, deps, reads);
  if ('kind' in checks) return checks;
  await refuseConfidentialTarget(asked, reads);
  const request = await withRequester(asked, context, reads);
  deps.onChecks?.(checks);
  // the checkout goes on while the user-config API is asked and the first note is posted;
  // a bad configuration is told first, and nothing is left running when one fails
  const requester = requesterOf(context, request);
  const configured = deps.config.final(checks.configFile, requester);
  const checkout = mergeRequestCheckout({ context, request, reads }, deps);
  checkout.catch(() => undefined);
  const { config, refused } = await configured.catch(async (error: unknown) => {
    await checkout.catch(() => undefined);
    throw error;
  });
  const known = requester.username ? { ...request, username: requester.username } : request;
  const accepted: AcceptedRun = {
    context,
    request: known,
    config,
    gitlab: deps.gitlab,
    reads,
    env: deps.env,
    project: checks.project,
    bot: checks.bot,
    ...(refused ? { refusedUserSettings: refused } : {}),
  };
  const announced = deps.announce?.(accepted);
  announced?.catch(() => undefined);
  // the version only adds lines to the run's notes: asked once the first note is out
  const afterNote = () => instanceVersion(deps);
  const version = announced ? announced.then(afterNote, afterNote) : afterNote();
  const mergeRequest = await checkout.catch(async (error: unknown) => {
    await announced?.catch(() => undefined);
    throw error;
  });
  if (refused) {
    deps.logger.warn('user-config API settings refused', {
      keys: refused,
      reason: "the user-config API sets the requesting user's own choices only",
    });
  }
  await excludeAgentFolders(context.projectDir);
  deps.logger.info('request accepted', {
    step: context.step,
    source: request.source,
    command: request.command,
    target: request.target,
    noteId: request.noteId,
  });
  const gitlabVersion = await version;
  const firstNote = await announced;
  return {
    kind: 'ready',
    run: {
      ...accepted,
      mergeRequest,
      ...(gitlabVersion ? { gitlabVersion } : {}),
      ...(firstNote ? { firstNote } : {}),
    },
  };
}
