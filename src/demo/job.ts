/**
 * The CI job of the demo: what `mr-agent ci` does for a merge request
 * comment, on a checkout of the merge request's branch — start checks
 * (token scope, bot user, the commenter's role, configuration from the
 * default branch), earlier runs, the progress note on the merge request,
 * then the run (gather → plan → environment → execute ⇄ reflect → review →
 * verify → deliver) with GitLab as request source, note target and remote.
 */
import { copyFile, mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import { loadConfig } from '../config/load.ts';
import type { Config } from '../config/options.ts';
import { runStartChecks, type StartCheckResult } from '../gitlab/checks.ts';
import { createGitLabClient } from '../gitlab/gitbeaker-adapter.ts';
import { GitLabNoteTarget } from '../gitlab/note-target.ts';
import { restorePastRuns } from '../gitlab/past-runs.ts';
import { loadGitLabRequest, type GitLabRequestInput } from '../ci/gitlab-request.ts';
import { ACCESS_LEVEL, type GitLabPort, type MergeRequest, type Noteable } from '../gitlab/port.ts';
import type { LlmPort } from '../llm/port.ts';
import type { Logger } from '../log/logger.ts';
import type { Redactor } from '../log/redact.ts';
import { createDeliveryStep } from '../phases/deliver/step.ts';
import type { NoteTarget } from '../report/note-target.ts';
import type { Clock } from '../run/clock.ts';
import type { RunHooks } from '../run/hooks.ts';
import type { EnvironmentSetupOutcome, EnvironmentStep } from '../run/ports.ts';
import type { Shell } from '../shell/port.ts';
import { environmentStep as createEnvironmentStep } from '../run/environment-step.ts';
import { runTask } from '../run/orchestrator.ts';
import type { RunOutcome } from '../run/outcome.ts';
import { promptLibrary } from '../run/prompts.ts';
import { startReporting, type Reporting } from '../run/reporting/index.ts';
import { ExecaShell } from '../shell/execa-shell.ts';
import { taskFromText, type TaskSpec } from '../task/task-yaml.ts';
import type { Tool } from '../tools/index.ts';

export interface JobInput {
  gitlabUrl: string;
  botToken: string;
  projectId: number;
  mergeRequestIid: number;
  /** The CI variables the pipeline was triggered with (`MR_AGENT_*`). */
  variables: Readonly<Record<string, string>>;
  ci: { jobId: string; pipelineId: string; jobUrl: string };
  /** The checkout of the merge request's source branch (CI_PROJECT_DIR). */
  checkoutDir: string;
  /** Host variables for commands (PATH, HOME …); commands see them through `sandboxEnv`. */
  hostEnv: Readonly<Record<string, string | undefined>>;
  /** Further configuration (`--set key=value`). */
  sets?: readonly string[];
}

export interface JobDeps {
  llm: LlmPort;
  clock: Clock;
  logger: Logger;
  redactor: Redactor;
  /** Wraps the note target (the demo shows every write on the terminal). */
  noteTarget?: (target: NoteTarget) => NoteTarget;
  tools?: Tool[];
  hooks?: Partial<RunHooks>;
  onChecks?: (checks: StartCheckResult) => void;
  /** The shell of the environment setup (the demo announces its commands). */
  setupShell?: (shell: Shell) => Shell;
  onSetup?: (outcome: EnvironmentSetupOutcome) => void;
  /** Cancels the run (Ctrl-C); it still writes its final state. */
  signal?: AbortSignal;
}

export interface JobResult {
  outcome: RunOutcome;
  config: Config;
  reporting: Reporting;
  taskId: string;
}

async function jobConfig(input: JobInput, gitlab: GitLabPort, deps: JobDeps) {
  const env = { ...input.variables };
  const base = await loadConfig({ env, file: null, sets: input.sets ?? [] });
  const triggeredBy = Number(input.variables.MR_AGENT_TRIGGERED_BY);
  const checks = await runStartChecks({
    gitlab,
    project: input.projectId,
    ...(Number.isInteger(triggeredBy) ? { triggeredBy } : {}),
    minimumAccessLevel: base.config.trigger.min_access_level,
  });
  deps.onChecks?.(checks);
  const { config } = await loadConfig({ env, file: checks.configFile, sets: input.sets ?? [] });
  return { config, checks };
}

/** History of earlier runs on the MR (I2): their JSONL files join this run's history folder. */
async function restoreHistory(
  gitlab: GitLabPort,
  input: JobInput,
  on: Noteable,
  botUserId: number,
  historyDir: string,
  logger: Logger,
): Promise<void> {
  const into = path.join(path.dirname(historyDir), 'past-runs');
  const runs = await restorePastRuns({
    gitlab,
    project: input.projectId,
    on,
    botUserId,
    currentJobId: input.ci.jobId,
    into,
    logger,
  });
  await mkdir(historyDir, { recursive: true });
  for (const run of runs.filter((r) => r.dir)) {
    const dir = path.join(run.dir!, path.basename(historyDir));
    const files = await readdir(dir).catch(() => [] as string[]);
    for (const file of files.filter((f) => f.endsWith('.jsonl')))
      await copyFile(path.join(dir, file), path.join(historyDir, file)).catch(() => undefined);
  }
}

/** What the job has learnt before the run starts. */
interface JobContext {
  input: JobInput;
  deps: JobDeps;
  gitlab: GitLabPort;
  config: Config;
  checks: StartCheckResult;
  on: Noteable;
  mergeRequest: MergeRequest;
  task: TaskSpec;
  notes: NoteTarget;
  shell: ExecaShell;
  marker: { job: string; pipeline: string; task: string };
}

async function openJob(input: JobInput, deps: JobDeps): Promise<JobContext> {
  const { logger, redactor, clock } = deps;
  redactor.add(input.botToken);
  const gitlab = createGitLabClient({ url: input.gitlabUrl, token: input.botToken, clock, logger });
  const { config, checks } = await jobConfig(input, gitlab, deps);
  const on: Noteable = { type: 'merge_request', iid: input.mergeRequestIid };
  const mergeRequest = await gitlab.getMergeRequest(input.projectId, input.mergeRequestIid);
  const taskId = `job-${input.ci.jobId}`;
  const task = taskFromText(input.variables.MR_AGENT_TASK ?? mergeRequest.title, {
    repo: input.checkoutDir,
    id: taskId,
    maxLoops: config.runner.max_loops,
  });
  const gitlabNotes = new GitLabNoteTarget(gitlab, input.projectId, on, mergeRequest.webUrl);
  return {
    input,
    deps,
    gitlab,
    config,
    checks,
    on,
    mergeRequest,
    task,
    notes: deps.noteTarget ? deps.noteTarget(gitlabNotes) : gitlabNotes,
    shell: new ExecaShell(),
    marker: { job: input.ci.jobId, pipeline: input.ci.pipelineId, task: taskId },
  };
}

/** The progress note on the MR, the state files, and the history of earlier runs. */
async function openReporting(job: JobContext): Promise<Reporting> {
  const { input, deps, config, task } = job;
  const reporting = await startReporting({
    repoDir: input.checkoutDir,
    config,
    taskId: task.id,
    title: task.title,
    runId: task.id,
    target: job.notes,
    redactor: deps.redactor,
    logger: deps.logger,
    clock: deps.clock,
    ci: input.ci,
    issueId: `mr-${input.mergeRequestIid}`,
    artifactUrl: (file) => `${input.ci.jobUrl}/artifacts/file/${file}`,
  });
  const historyDir = reporting.paths.historyDir;
  await restoreHistory(job.gitlab, input, job.on, job.checks.bot.id, historyDir, deps.logger);
  return reporting;
}

function environmentStep(job: JobContext): EnvironmentStep {
  const { deps } = job;
  const step = createEnvironmentStep({
    config: job.config,
    llm: deps.llm,
    shell: deps.setupShell ? deps.setupShell(job.shell) : job.shell,
    clock: deps.clock,
    logger: deps.logger,
    redactor: deps.redactor,
    hostEnv: job.input.hostEnv,
    repoDir: job.input.checkoutDir,
    marker: job.marker,
  });
  const onSetup = deps.onSetup;
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

function deliveryStep(job: JobContext) {
  const { input, config, checks, mergeRequest } = job;
  return createDeliveryStep({
    repoDir: input.checkoutDir,
    gitlab: job.gitlab,
    project: checks.project,
    target: { kind: 'merge_request', mergeRequest },
    notes: job.notes,
    token: input.botToken,
    hostEnv: input.hostEnv,
    author: { name: checks.bot.name, email: `${checks.bot.username}@users.noreply.gitlab.invalid` },
    branchPrefix: config.delivery.branch_prefix,
    push: config.delivery.push,
    stateDir: config.state.directory,
    marker: job.marker,
    redactor: job.deps.redactor,
    logger: job.deps.logger,
    footer: `Requested in !${mergeRequest.iid}: ${job.task.description.split('\n')[0]}`,
  });
}

/** The request as `mr-agent ci` loads it: the MR, its changes and its discussion (C1, C4). */
function requestInput(job: JobContext): GitLabRequestInput {
  const { input } = job;
  const noteId = Number(input.variables.MR_AGENT_NOTE_ID);
  const userId = Number(input.variables.MR_AGENT_TRIGGERED_BY);
  return {
    gitlab: job.gitlab,
    projectId: input.projectId,
    request: {
      source: 'note',
      command: 'run',
      task: job.task.description,
      target: { kind: 'merge_request', iid: input.mergeRequestIid },
      ...(Number.isInteger(noteId) && noteId > 0 ? { noteId } : {}),
      ...(Number.isInteger(userId) && userId > 0 ? { userId } : {}),
    },
    minimumAccessLevel: ACCESS_LEVEL[job.config.trigger.min_access_level],
    botUserId: job.checks.bot.id,
  };
}

/** Runs the agent job for a merge request comment. Never throws for run failures. */
export async function runAgentJob(input: JobInput, deps: JobDeps): Promise<JobResult> {
  const job = await openJob(input, deps);
  const { config, task } = job;
  const reporting = await openReporting(job);
  const outcome = await runTask(
    {
      config,
      llm: deps.llm,
      shell: job.shell,
      clock: deps.clock,
      logger: deps.logger,
      redactor: deps.redactor,
      hostEnv: input.hostEnv,
      prompts: promptLibrary(config.prompts.directory),
      reporter: reporting.reporter,
      history: reporting.history,
      environment: environmentStep(job),
      delivery: deliveryStep(job),
      request: { load: () => loadGitLabRequest(requestInput(job)) },
      // LLM-decided replanning (seed 003) when planning.replanning.enabled; review comes with the run
      hooks: { replan: reporting.replan, ...deps.hooks },
      ...(deps.tools ? { tools: deps.tools } : {}),
      ...(deps.signal ? { signal: deps.signal } : {}),
    },
    { task, repoDir: input.checkoutDir, maxLoops: config.runner.max_loops },
  );
  return { outcome, config, reporting, taskId: task.id };
}
