import { UsageError } from '../errors/errors.ts';
import { findPastRunNotes } from '../gitlab/past-runs.ts';
import type { Config } from '../config/options.ts';
import type { Clock } from '../core/clock.ts';
import type { RequestSource, ReviewThreadRequest } from '../core/gathered.ts';
import type { GitLabUser } from '../core/gitlab-port.ts';
import type { LlmPort } from '../core/llm-port.ts';
import type { RunDeps } from '../core/run-context.ts';
import type { Shell } from '../core/shell-port.ts';
import { describeError } from '../errors/catalog.ts';
import { pauseAwarded } from '../commands/pause.ts';
import { createTargetLock } from '../commands/target-lock.ts';
import { bridgeGitLabFromPort } from '../commands/gitlab-bridge.ts';
import type { ConversationPort } from '../core/conversation.ts';
import { gitlabConversation } from './conversation.ts';
import { statePaths, type StatePaths } from '../history/paths.ts';
import { lazyOpenAiLlm } from '../llm/lazy-llm.ts';
import type { Logger } from '../log/logger.ts';
import type { Redactor } from '../log/redact.ts';
import type { DeliveryTarget } from '../phases/deliver/deliver.ts';
import { gitlabAnswers } from '../phases/replan/answers.ts';
import { composeRun, type GitLabDelivery, type RunObservers } from '../run/compose.ts';
import type { Reporting } from '../run/reporting/index.ts';
import { taskFromText, type TaskSpec } from '../task/task-yaml.ts';
import { ACCESS_LEVEL } from '../gitlab/access-levels.ts';
import { forkCodeNotRun } from './fork-code.ts';
import { loadGitLabRequest } from './gitlab-request.ts';
import { AdoptingNoteTarget, noteTargetFor } from './note-target.ts';
import { issueIdOf } from './past-history.ts';
import type { PreparedRun } from './prepare.ts';
import { ciTaskId } from './task-id.ts';
import type { Language } from '../messages/language.ts';

/** What a CI run is built from; tests swap the model and the clock. */
export interface SessionServices {
  shell: Shell;
  clock: Clock;
  createLlm?(config: Config, env: PreparedRun['env'], logger: Logger, clock: Clock): LlmPort;
  /** Where the job log goes (collapsible sections, local notes). */
  write(text: string): void;
  observers?: RunObservers;
}

export interface CiSession {
  task: TaskSpec;
  runId: string;
  paths: StatePaths;
  deps: RunDeps;
  reporting: Reporting;
}

/** GitLab's no-reply address of a user: `<id>-<username>@users.noreply.<host>`. */
export function noReplyEmail(user: GitLabUser, webUrl: string): string {
  const host = new URL(webUrl).hostname;
  return `${user.id}-${user.username}@users.noreply.${host}`;
}

async function deliveryTargetOf(run: PreparedRun): Promise<DeliveryTarget | undefined> {
  const target = run.request.target;
  if (target.kind === 'merge_request' && run.mergeRequest)
    return { kind: 'merge_request', mergeRequest: run.mergeRequest };
  if (target.kind === 'issue') return { kind: 'issue', issue: await run.reads.issue(target.iid) };
  // neither merge request nor issue: the branch the pipeline runs on
  return run.context.ref ? { kind: 'branch', branch: run.context.ref } : undefined;
}

/** GitLab's page for a file of this job's artifacts. */
function artifactUrl(run: PreparedRun): (file: string) => string {
  const job = run.context.job.url ?? `${run.project.webUrl}/-/jobs/${run.context.job.id}`;
  return (file) => `${job}/artifacts/file/${file.split('/').map(encodeURIComponent).join('/')}`;
}

/**
 * Commit and push on completion: to the MR's branch, to a new branch
 * and draft MR for an issue, or to the pipeline's branch for a run on neither.
 */
async function deliveryFor(run: PreparedRun, task: TaskSpec): Promise<GitLabDelivery | undefined> {
  const target = await deliveryTargetOf(run);
  if (!target) return undefined;
  const where =
    target.kind === 'merge_request'
      ? `!${target.mergeRequest.iid}`
      : target.kind === 'issue'
        ? `#${target.issue.iid}`
        : `a pipeline on ${target.branch}`;
  return {
    gitlab: run.gitlab,
    project: run.project,
    target,
    token: run.config.gitlab.token,
    author: {
      name: run.bot.name || run.bot.username,
      email: noReplyEmail(run.bot, run.project.webUrl),
    },
    footer: `Requested in ${where}: ${task.description.split('\n')[0]}`,
  };
}

interface SessionInput {
  services: SessionServices;
  logger: Logger;
  redactor: Redactor;
  task: { text: string; id?: string | undefined };
  /** Default: the task id. */
  runId?: string | undefined;
  /** The plan job's progress note, which the run job keeps editing. */
  adoptNoteId?: string | undefined;
  /** Aborts the run (the job's lifecycle). */
  signal: AbortSignal;
  /** The earlier task whose plan the run may reuse (retry, resume). */
  planSource?: string | undefined;
  /** A review-only run (`/agent review`): the merge request it reviews is composed in. */
  review?: boolean | undefined;
  /** The diff threads the run addresses: part of its request. */
  threads?: readonly ReviewThreadRequest[] | undefined;
  /** The notes' language, decided once for the run (./request-language.ts). */
  language: Language;
}

function notesFor(run: PreparedRun, input: SessionInput, paths: StatePaths, webUrl?: string) {
  const target = run.request.target;
  const base = noteTargetFor({
    gitlab: run.gitlab,
    projectId: run.project.id,
    request: run.request,
    webUrl,
    stateDir: paths.stateDir,
    write: input.services.write,
    ...(target.kind === 'none'
      ? {}
      : {
          known: {
            notes: () => run.reads.notes({ type: target.kind, iid: target.iid }),
            selfId: run.bot.id,
          },
        }),
  });
  return input.adoptNoteId ? new AdoptingNoteTarget(base, input.adoptNoteId, webUrl) : base;
}

/** Replies to a ❓ clarification note come from the thread on the MR or issue. */
function answersFor(run: PreparedRun) {
  const target = run.request.target;
  if (target.kind === 'none') return undefined;
  return gitlabAnswers(run.gitlab, {
    project: run.project.id,
    on: { type: target.kind, iid: target.iid },
    minAccessLevel: ACCESS_LEVEL[run.config.trigger.min_access_level],
    selfId: run.bot.id,
    reads: run.reads,
  });
}

/** The OpenAI-compatible model, its SDK loaded at the first request (or the one the services make). */
function llmFor(run: PreparedRun, input: SessionInput): LlmPort {
  const { services, logger } = input;
  const make =
    services.createLlm ?? ((c, env, l, k) => lazyOpenAiLlm(c, { env, logger: l, clock: k }));
  return make(run.config, run.env, logger, services.clock);
}

/** The merge request or issue with its discussion, loaded when the run gathers. */
function requestSource(
  run: PreparedRun,
  threads: readonly ReviewThreadRequest[] | undefined,
): RequestSource {
  return {
    load: () =>
      loadGitLabRequest({
        threads,
        gitlab: run.gitlab,
        projectId: run.project.id,
        reads: run.reads,
        request: run.request,
        minimumAccessLevel: ACCESS_LEVEL[run.config.trigger.min_access_level],
        botUserId: run.bot.id,
      }),
  };
}

/**
 * A CI run, composed by the one composition root (src/run/compose.ts) from
 * what the job knows: the progress note on the merge request or issue (or the
 * one the plan job started), the request and its discussion from GitLab,
 * delivery to the merge request's branch (or a new branch for an issue),
 * answers read from a ❓ thread, links to the job's artifacts. Creates the
 * progress note.
 */
export async function openSession(run: PreparedRun, input: SessionInput): Promise<CiSession> {
  const { config, context } = run;
  const { services, logger, redactor } = input;
  const paths = statePaths(
    context.projectDir,
    config.state.directory,
    config.planning.history.directory,
  );
  const task = taskFromText(input.task.text, {
    repo: context.projectDir,
    maxLoops: config.runner.max_loops,
    id: input.task.id ?? ciTaskId(run),
  });
  const runId = input.runId ?? task.id;
  const issueId = issueIdOf(run.project.id, run.request);
  const answers = answersFor(run);
  const codeNotRun = forkCodeNotRun(run);
  const { language } = input;
  if (codeNotRun) logger.info("the fork's code is not run", { reason: codeNotRun.reason });
  const { deps, reporting } = await composeRun({
    config,
    task,
    repoDir: context.projectDir,
    runId,
    clock: services.clock,
    shell: services.shell,
    logger,
    redactor,
    hostEnv: run.env,
    llm: llmFor(run, input),
    notes: notesFor(run, input, paths, await webUrlOf(run)),
    signal: input.signal,
    log: services.write,
    ci: {
      jobId: String(context.job.id),
      pipelineId: String(context.pipeline.id),
      ...(context.job.url ? { jobUrl: context.job.url } : {}),
    },
    ...(issueId ? { issueId } : {}),
    ...(input.planSource ? { planSource: input.planSource } : {}),
    artifactUrl: artifactUrl(run),
    ...(answers ? { answers } : {}),
    ...(run.request.username ? { requester: run.request.username } : {}),
    ...(run.gitlabVersion ? { gitlabVersion: run.gitlabVersion } : {}),
    request: requestSource(run, input.threads),
    delivery: await deliveryFor(run, task),
    pauseAsked: pauseCheck(run),
    ...(config.budget.mr_max_usd !== null ? { mrSpentUsd: await earlierSpendUsd(run) } : {}),
    conversation: conversationFor(run, services.clock, logger, redactor, language),
    language,
    observers: services.observers,
    ...(codeNotRun ? { codeNotRun } : {}),
    ...(run.refusedUserSettings ? { refusedUserSettings: run.refusedUserSettings } : {}),
    ...(input.review ? { mergeRequestReview: mergeRequestUnderReview(run) } : {}),
  });
  return { task, runId, paths, deps, reporting };
}

/** The merge request `/agent review` reviews; only a merge request can be reviewed. */
function mergeRequestUnderReview(run: PreparedRun) {
  const mr = run.mergeRequest;
  if (run.request.target.kind !== 'merge_request' || !mr)
    throw new UsageError('`review` reviews a merge request: comment it on one', {
      where: 'MR_AGENT_COMMAND',
    });
  return {
    gitlab: run.gitlab,
    project: run.project.id,
    iid: mr.iid,
    botUserId: run.bot.id,
    webUrl: mr.webUrl,
    title: mr.title,
    description: mr.description,
  };
}

/** USD the earlier runs on this merge request or issue spent, from their progress notes' markers. */
async function earlierSpendUsd(run: PreparedRun): Promise<number> {
  const target = run.request.target;
  if (target.kind === 'none') return 0;
  const on = { type: target.kind, iid: target.iid } as const;
  const past = await findPastRunNotes({
    gitlab: run.gitlab,
    project: run.project.id,
    on,
    botUserId: run.bot.id,
    currentJobId: String(run.context.job.id),
    notes: await run.reads.notes(on),
  });
  return past.reduce((sum, p) => {
    const usd = Number(p.marker.usd);
    return Number.isFinite(usd) && usd > 0 ? sum + usd : sum;
  }, 0);
}

async function webUrlOf(run: PreparedRun): Promise<string | undefined> {
  const target = run.request.target;
  if (target.kind === 'merge_request') return run.mergeRequest?.webUrl;
  if (target.kind === 'issue') return (await run.reads.issue(target.iid)).webUrl;
  return undefined;
}

/**
 * What people say on the merge request or issue during the run
 * (./conversation.ts): heard from the notes after the newest one the job
 * already read.
 */
function conversationFor(
  run: PreparedRun,
  clock: Clock,
  logger: Logger,
  redactor: Redactor,
  language: Language,
): ConversationPort | undefined {
  const target = run.request.target;
  if (target.kind === 'none') return undefined;
  const on = { type: target.kind, iid: target.iid } as const;
  // the same lock the bridge holds while it answers "joined" (src/commands/target-lock.ts)
  const lock = createTargetLock(bridgeGitLabFromPort(run.gitlab), {
    selfId: run.bot.id,
    onReleaseError: (error) =>
      logger.warn('lock award not removed; it goes stale', {
        error: describeError(error).message,
      }),
  });
  const lockTarget =
    target.kind === 'merge_request'
      ? { kind: target.kind, iid: target.iid, sourceBranch: '', fork: false }
      : { kind: target.kind, iid: target.iid };
  return gitlabConversation({
    pipelineId: String(run.context.pipeline.id),
    ...(lock
      ? {
          underLock: async <T>(work: () => Promise<T>) =>
            (await lock.withLock(run.project.id, lockTarget, work))?.done,
        }
      : {}),
    gitlab: run.gitlab,
    project: run.project.id,
    on,
    selfId: run.bot.id,
    minAccessLevel: ACCESS_LEVEL[run.config.trigger.min_access_level],
    accessLevel: (userId) => run.reads.accessLevel(userId),
    seenUpTo: async () =>
      Math.max(0, run.request.noteId ?? 0, ...(await run.reads.notes(on)).map((n) => n.id)),
    prefix: run.config.trigger.command_prefix,
    clock,
    redactor,
    logger,
    language: { setting: run.config.notes.language, run: language },
  });
}

/** `/agent pause` reaches the job as a ⏸ on its progress note (src/commands/pause.ts). */
function pauseCheck(run: PreparedRun): ((noteId: string) => Promise<boolean>) | undefined {
  const target = run.request.target;
  if (target.kind === 'none') return undefined;
  const on = { type: target.kind, iid: target.iid } as const;
  const least = ACCESS_LEVEL[run.config.trigger.min_access_level];
  return async (noteId) =>
    pauseAwarded(await run.gitlab.listNoteAwardEmoji(run.project.id, on, Number(noteId)), {
      selfId: run.bot.id,
      mayCommand: async (userId) => (await run.reads.accessLevel(userId)) >= least,
    });
}
