import type { Config } from '../config/options.ts';
import type { Language } from '../core/messages/language.ts';
import type { GitLabUser } from '../core/gitlab-port.ts';
import { statePaths, type StatePaths } from '../history/paths.ts';
import { createOpenAiLlm } from '../llm/openai-llm.ts';
import type { LlmPort } from '../core/llm-port.ts';
import type { RequestSource } from '../core/gathered.ts';
import type { Logger } from '../log/logger.ts';
import type { Redactor } from '../log/redact.ts';
import { createSectionWriter } from '../log/sections.ts';
import type { DeliveryTarget } from '../phases/deliver/deliver.ts';
import { createDeliveryStep } from '../phases/deliver/step.ts';
import { gitlabAnswers } from '../phases/replan/index.ts';
import type { NoteTarget } from '../core/note-target.ts';
import type { Clock } from '../core/clock.ts';
import type { RunDeps } from '../core/run-context.ts';
import { environmentStep } from '../phases/environment/step.ts';
import type { RunHooks } from '../core/hooks.ts';
import type { DeliveryStep, EnvironmentSetupOutcome, EnvironmentStep } from '../core/ports.ts';
import { promptLibrary } from '../core/prompts.ts';
import { startReporting, type Reporting } from '../run/reporting/index.ts';
import type { Shell } from '../core/shell-port.ts';
import { taskFromText, type TaskSpec } from '../task/task-yaml.ts';
import type { Tool } from '../tools/index.ts';
import { ACCESS_LEVEL_VALUES } from '../trigger/access.ts';
import { loadGitLabRequest } from './gitlab-request.ts';
import { AdoptingNoteTarget, noteTargetFor } from './note-target.ts';
import { issueIdOf } from './past-history.ts';
import type { PreparedRun } from './prepare.ts';

/**
 * Ways to watch or wrap parts of a CI run without composing it again: the
 * demo (`mr-agent demo`) narrates the model calls, tools, note writes and
 * environment setup of the very same run.
 */
export interface RunObservers {
  llm?(llm: LlmPort): LlmPort;
  noteTarget?(target: NoteTarget): NoteTarget;
  setupShell?(shell: Shell): Shell;
  onSetup?(outcome: EnvironmentSetupOutcome): void;
  tools?: Tool[];
  /** Replace the run's hooks (default: the reporting's replan hook and the review phase). */
  hooks?: Partial<RunHooks>;
}

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
  controller: AbortController;
}

/** The task id of a CI run: one per job that starts a run (the run job keeps the plan job's). */
export const ciTaskId = (run: PreparedRun) => `job-${run.context.job.id}`;

/** GitLab's no-reply address of a user: `<id>-<username>@users.noreply.<host>`. */
export function noReplyEmail(user: GitLabUser, webUrl: string): string {
  const host = new URL(webUrl).hostname;
  return `${user.id}-${user.username}@users.noreply.${host}`;
}

async function deliveryTargetOf(run: PreparedRun): Promise<DeliveryTarget | undefined> {
  const target = run.request.target;
  if (target.kind === 'merge_request' && run.mergeRequest)
    return { kind: 'merge_request', mergeRequest: run.mergeRequest };
  if (target.kind === 'issue')
    return { kind: 'issue', issue: await run.gitlab.getIssue(run.project.id, target.iid) };
  // neither merge request nor issue: the branch the pipeline runs on
  return run.context.ref ? { kind: 'branch', branch: run.context.ref } : undefined;
}

/** GitLab's page for a file of this job's artifacts. */
function artifactUrl(run: PreparedRun): (file: string) => string {
  const job = run.context.job.url ?? `${run.project.webUrl}/-/jobs/${run.context.job.id}`;
  return (file) => `${job}/artifacts/file/${file.split('/').map(encodeURIComponent).join('/')}`;
}

/**
 * Commit and push on completion (SPEC H3): to the MR's branch, to a new branch
 * and draft MR for an issue, or to the pipeline's branch for a run on neither.
 */
async function deliveryFor(
  run: PreparedRun,
  notes: NoteTarget,
  marker: { job: string; pipeline: string; task: string },
  input: { task: TaskSpec; redactor: Redactor; logger: Logger; language: Language },
): Promise<DeliveryStep | undefined> {
  const target = await deliveryTargetOf(run);
  if (!target) return undefined;
  const where =
    target.kind === 'merge_request'
      ? `!${target.mergeRequest.iid}`
      : target.kind === 'issue'
        ? `#${target.issue.iid}`
        : `a pipeline on ${target.branch}`;
  return createDeliveryStep({
    repoDir: run.context.projectDir,
    gitlab: run.gitlab,
    project: run.project,
    target,
    notes,
    token: run.config.gitlab.token,
    hostEnv: run.env,
    author: {
      name: run.bot.name || run.bot.username,
      email: noReplyEmail(run.bot, run.project.webUrl),
    },
    branchPrefix: run.config.delivery.branch_prefix,
    push: run.config.delivery.push,
    stateDir: run.config.state.directory,
    marker,
    language: input.language,
    redactor: input.redactor,
    logger: input.logger,
    footer: `Requested in ${where}: ${input.task.description.split('\n')[0]}`,
  });
}

function observedEnvironment(step: EnvironmentStep, observers: RunObservers): EnvironmentStep {
  const onSetup = observers.onSetup;
  if (!onSetup) return step;
  return {
    ...step,
    async setup(selected, signal) {
      const outcome = await step.setup(selected, signal);
      onSetup(outcome);
      return outcome;
    },
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
  /** Aborts the run (a termination signal); default: a fresh one. */
  controller?: AbortController;
}

function notesFor(run: PreparedRun, input: SessionInput, paths: StatePaths, webUrl?: string) {
  const base = noteTargetFor({
    gitlab: run.gitlab,
    projectId: run.project.id,
    request: run.request,
    webUrl,
    stateDir: paths.stateDir,
    write: input.services.write,
  });
  const watched = input.services.observers?.noteTarget?.(base) ?? base;
  return input.adoptNoteId ? new AdoptingNoteTarget(watched, input.adoptNoteId, webUrl) : watched;
}

async function reportingFor(
  run: PreparedRun,
  input: SessionInput,
  task: TaskSpec,
  notes: NoteTarget,
): Promise<Reporting> {
  const { context, config } = run;
  const target = run.request.target;
  const issueId = issueIdOf(run.project.id, run.request);
  return startReporting({
    repoDir: context.projectDir,
    config,
    taskId: task.id,
    title: task.title,
    runId: input.runId ?? task.id,
    target: notes,
    redactor: input.redactor,
    logger: input.logger,
    clock: input.services.clock,
    ci: {
      jobId: String(context.job.id),
      pipelineId: String(context.pipeline.id),
      ...(context.job.url ? { jobUrl: context.job.url } : {}),
    },
    ...(issueId ? { issueId } : {}),
    artifactUrl: artifactUrl(run),
    // replies to a ❓ clarification note come from the thread on the MR or issue (F4)
    ...(target.kind === 'none'
      ? {}
      : {
          answers: gitlabAnswers(run.gitlab, {
            project: run.project.id,
            on: { type: target.kind, iid: target.iid },
            minAccessLevel: ACCESS_LEVEL_VALUES[config.trigger.min_access_level],
            selfId: run.bot.id,
          }),
        }),
  });
}

/** The OpenAI-compatible model (or the one the services make), watched when asked. */
function llmFor(run: PreparedRun, input: SessionInput): LlmPort {
  const { services, logger } = input;
  const make =
    services.createLlm ?? ((c, env, l, k) => createOpenAiLlm(c, { env, logger: l, clock: k }));
  const created = make(run.config, run.env, logger, services.clock);
  return services.observers?.llm?.(created) ?? created;
}

/** The merge request or issue with its discussion, loaded when the run gathers (C1, C4). */
function requestSource(run: PreparedRun): RequestSource {
  return {
    load: () =>
      loadGitLabRequest({
        gitlab: run.gitlab,
        projectId: run.project.id,
        request: run.request,
        minimumAccessLevel: ACCESS_LEVEL_VALUES[run.config.trigger.min_access_level],
        botUserId: run.bot.id,
      }),
  };
}

/**
 * The one composition of a CI run (`mr-agent ci`, and `mr-agent demo`
 * through it): the OpenAI-compatible model, the progress note on the merge
 * request or issue (or the one the plan job started), history and Task Note
 * in `.mr-agent/`, the replan hook of the reporting (seed 003) and the review
 * phase (seed 004), the environment phase, the request loaded from GitLab,
 * delivery on completion and collapsible log sections per phase (B4).
 */
export async function openSession(run: PreparedRun, input: SessionInput): Promise<CiSession> {
  const { config, context } = run;
  const { services, logger, redactor } = input;
  const observers = services.observers ?? {};
  const clock = services.clock;
  const llm = llmFor(run, input);
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
  const notes = notesFor(run, input, paths, await webUrlOf(run));
  const reporting = await reportingFor(run, input, task, notes);
  const marker = {
    job: String(context.job.id),
    pipeline: String(context.pipeline.id),
    task: task.id,
  };
  const { language } = reporting;
  const delivery = await deliveryFor(run, notes, marker, { task, redactor, logger, language });
  const controller = input.controller ?? new AbortController();
  const environment = environmentStep({
    config,
    llm,
    shell: observers.setupShell?.(services.shell) ?? services.shell,
    clock,
    logger,
    redactor,
    hostEnv: run.env,
    repoDir: context.projectDir,
    marker,
    language,
  });
  const deps: RunDeps = {
    config,
    llm,
    shell: services.shell,
    clock,
    logger,
    redactor,
    hostEnv: run.env,
    prompts: promptLibrary(config.prompts.directory, language),
    reporter: reporting.reporter,
    history: reporting.history,
    environment: observedEnvironment(environment, observers),
    ...(delivery ? { delivery } : {}),
    request: requestSource(run),
    // LLM-decided replanning (seed 003) when planning.replanning.enabled; review comes with the run
    hooks: { replan: reporting.replan, ...observers.hooks },
    ...(observers.tools ? { tools: observers.tools } : {}),
    sections: createSectionWriter(services.write, () => clock.now(), run.env.CI === 'true'),
    signal: controller.signal,
  };
  return { task, runId: input.runId ?? task.id, paths, deps, reporting, controller };
}

async function webUrlOf(run: PreparedRun): Promise<string | undefined> {
  const target = run.request.target;
  if (target.kind === 'merge_request') return run.mergeRequest?.webUrl;
  if (target.kind === 'issue')
    return (await run.gitlab.getIssue(run.project.id, target.iid)).webUrl;
  return undefined;
}
