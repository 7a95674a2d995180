import type { Config } from '../config/options.ts';
import { statePaths, type StatePaths } from '../history/paths.ts';
import { createOpenAiLlm } from '../llm/openai-llm.ts';
import type { LlmPort } from '../llm/port.ts';
import type { Logger } from '../log/logger.ts';
import type { Redactor } from '../log/redact.ts';
import { createSectionWriter } from '../log/sections.ts';
import type { Clock } from '../run/clock.ts';
import type { RunDeps } from '../run/context.ts';
import { environmentStep } from '../run/environment-step.ts';
import { promptLibrary } from '../run/prompts.ts';
import { startReporting, type Reporting } from '../run/reporting/index.ts';
import type { Shell } from '../shell/port.ts';
import { ACCESS_LEVEL_VALUES } from '../trigger/access.ts';
import { taskFromText, type TaskSpec } from '../task/task-yaml.ts';
import { deliverBeforeFinal, type CiDelivery } from './delivery.ts';
import { loadGitLabRequest } from './gitlab-request.ts';
import { AdoptingNoteTarget, noteTargetFor } from './note-target.ts';
import { issueIdOf } from './past-history.ts';
import type { PreparedRun } from './prepare.ts';

/** What a CI run is built from; tests swap the model and the clock. */
export interface SessionServices {
  shell: Shell;
  clock: Clock;
  createLlm?(config: Config, env: PreparedRun['env'], logger: Logger, clock: Clock): LlmPort;
  /** Where the job log goes (collapsible sections, local notes). */
  write(text: string): void;
}

export interface CiSession {
  task: TaskSpec;
  runId: string;
  paths: StatePaths;
  deps: RunDeps;
  reporting: Reporting;
  delivery: CiDelivery;
  controller: AbortController;
}

async function webUrlOf(run: PreparedRun): Promise<string | undefined> {
  const target = run.request.target;
  if (target.kind === 'merge_request') return run.mergeRequest?.webUrl;
  if (target.kind === 'issue')
    return (await run.gitlab.getIssue(run.project.id, target.iid)).webUrl;
  return undefined;
}

/** GitLab's page for a file of this job's artifacts. */
function artifactUrl(run: PreparedRun): (file: string) => string {
  return (file) =>
    `${run.project.webUrl}/-/jobs/${run.context.job.id}/artifacts/file/${file.split('/').map(encodeURIComponent).join('/')}`;
}

/**
 * Wires one CI run: the OpenAI-compatible model, the progress note on the
 * merge request or issue (or the one the plan job started), history and
 * Task Note in `.mr-agent/`, the environment phase, the request loaded from
 * GitLab, collapsible log sections per phase (B4) and delivery on completion.
 */
export async function openSession(
  run: PreparedRun,
  input: {
    services: SessionServices;
    logger: Logger;
    redactor: Redactor;
    task: { text: string; id?: string | undefined };
    runId: string;
    /** The plan job's progress note, which the run job keeps editing. */
    adoptNoteId?: string | undefined;
  },
): Promise<CiSession> {
  const { config, context } = run;
  const { services, logger, redactor } = input;
  const clock = services.clock;
  const llm = (
    services.createLlm ?? ((c, env, l, k) => createOpenAiLlm(c, { env, logger: l, clock: k }))
  )(config, run.env, logger, clock);
  const paths = statePaths(
    context.projectDir,
    config.state.directory,
    config.planning.history.directory,
  );
  const task = taskFromText(input.task.text, {
    repo: context.projectDir,
    maxLoops: config.runner.max_loops,
    ...(input.task.id ? { id: input.task.id } : {}),
  });
  const webUrl = await webUrlOf(run);
  const base = noteTargetFor({
    gitlab: run.gitlab,
    projectId: run.project.id,
    request: run.request,
    webUrl,
    stateDir: paths.stateDir,
    write: services.write,
  });
  const notes = input.adoptNoteId ? new AdoptingNoteTarget(base, input.adoptNoteId, webUrl) : base;
  const ci = {
    jobId: String(context.job.id),
    pipelineId: String(context.pipeline.id),
    ...(context.job.url ? { jobUrl: context.job.url } : {}),
  };
  const issueId = issueIdOf(run.project.id, run.request);
  const reporting = await startReporting({
    repoDir: context.projectDir,
    config,
    taskId: task.id,
    title: task.title,
    runId: input.runId,
    target: notes,
    redactor,
    logger,
    clock,
    ci,
    ...(issueId ? { issueId } : {}),
    artifactUrl: artifactUrl(run),
  });
  const marker = { job: ci.jobId, pipeline: ci.pipelineId, task: task.id };
  const delivery = deliverBeforeFinal(reporting.reporter, {
    run,
    publisher: reporting.publisher,
    notes,
    token: config.gitlab.token,
    marker,
    redactor,
    logger,
  });
  const controller = new AbortController();
  const environment = environmentStep({
    config,
    llm,
    shell: services.shell,
    clock,
    logger,
    redactor,
    hostEnv: run.env,
    repoDir: context.projectDir,
    marker,
  });
  const deps: RunDeps = {
    config,
    llm,
    shell: services.shell,
    clock,
    logger,
    redactor,
    hostEnv: run.env,
    prompts: promptLibrary(config.prompts.directory),
    reporter: delivery.reporter,
    history: reporting.history,
    environment,
    request: {
      load: () =>
        loadGitLabRequest({
          gitlab: run.gitlab,
          projectId: run.project.id,
          request: run.request,
          minimumAccessLevel: ACCESS_LEVEL_VALUES[config.trigger.min_access_level],
          botUserId: run.bot.id,
        }),
    },
    sections: createSectionWriter(services.write, () => clock.now(), run.env.CI === 'true'),
    signal: controller.signal,
  };
  return { task, runId: input.runId, paths, deps, reporting, delivery, controller };
}
