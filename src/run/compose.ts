/**
 * The one composition root of a run (SPEC O1): `mr-agent run`, every step of
 * `mr-agent ci` and `mr-agent demo` build their `RunDeps` here, so a
 * capability wired for one entry is wired for all. The entries bring only
 * what is theirs: where notes go, the request and delivery facts from GitLab
 * (CI), the model factory (tests swap it).
 */
import type { Config } from '../config/options.ts';
import type { Clock } from '../core/clock.ts';
import type { RequestSource } from '../core/gathered.ts';
import type { RunHooks } from '../core/hooks.ts';
import type { LlmPort } from '../core/llm-port.ts';
import type { NoteTarget } from '../core/note-target.ts';
import type { ActionWorker, EnvironmentSetupOutcome, EnvironmentStep } from '../core/ports.ts';
import type { Language } from '../core/messages/language.ts';
import { promptLibrary } from '../core/prompts.ts';
import type { RunDeps } from '../core/run-context.ts';
import type { Shell } from '../core/shell-port.ts';
import { guardGitLab } from '../gitlab/request-budget.ts';
import type { Logger } from '../log/logger.ts';
import type { Redactor } from '../log/redact.ts';
import { createSectionWriter } from '../log/sections.ts';
import { createDeliveryStep, type DeliveryStepOptions } from '../phases/deliver/step.ts';
import { environmentStep, type EnvironmentStepDeps } from '../phases/environment/step.ts';
import type { AnswerSource } from '../phases/replan/index.ts';
import type { TaskSpec } from '../task/task-yaml.ts';
import type { Tool } from '../tools/index.ts';
import { createActionWorker } from '../workers/action-worker.ts';
import { isExternalWorkerKind } from '../workers/registry.ts';
import { startReporting, type Reporting } from './reporting/index.ts';

/**
 * Ways to watch or wrap parts of a run without composing it again: the demo
 * narrates the model calls, tools, note writes and environment setup of the
 * very same run.
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

/** Delivery on GitLab (CI): where the change goes; the rest comes from the configuration. */
export type GitLabDelivery = Pick<
  DeliveryStepOptions,
  'gitlab' | 'project' | 'target' | 'token' | 'author' | 'footer'
>;

export interface ComposeInput {
  config: Config;
  task: TaskSpec;
  repoDir: string;
  runId: string;
  clock: Clock;
  shell: Shell;
  logger: Logger;
  redactor: Redactor;
  /** The host (job) environment; commands and workers see only their allow-lists of it. */
  hostEnv: Readonly<Record<string, string | undefined>>;
  llm: LlmPort;
  /** Where the notes go: the merge request or issue, or the terminal and `.mr-agent/notes/`. */
  notes: NoteTarget;
  /** Cancels the run (the lifecycle's signal). */
  signal: AbortSignal;
  /** The job log: collapsible sections per phase when `CI=true` (B4). */
  log: (text: string) => void;
  /** CI facts for the note marker and links (absent locally). */
  ci?: { jobId: string; pipelineId: string; jobUrl?: string | undefined } | undefined;
  /** The MR/issue the run belongs to (history continuity, I1). */
  issueId?: string | undefined;
  /** The earlier task whose plan the run may reuse (seed 001 §7.3: retry, resume). */
  planSource?: string | undefined;
  artifactUrl?: ((file: string) => string | undefined) | undefined;
  /** Replies to a ❓ question (GitLab); absent: no waiting. */
  answers?: AnswerSource | undefined;
  /** Who asked (a GitLab username), @mentioned where an answer is needed. */
  requester?: string | undefined;
  /** The request from GitLab (CI); absent: the task is the request. */
  request?: RequestSource | undefined;
  /** Absent: nothing is committed or pushed (local runs). */
  delivery?: GitLabDelivery | undefined;
  observers?: RunObservers | undefined;
  /** Replaces the environment phase (tests). */
  createEnvironment?: ((deps: EnvironmentStepDeps) => EnvironmentStep | undefined) | undefined;
}

export interface ComposedRun {
  deps: RunDeps;
  reporting: Reporting;
}

/** The external coding CLI of `runner.worker.kind` (N1), checked before the note is created. */
async function workerFor(input: ComposeInput): Promise<ActionWorker | undefined> {
  const { config } = input;
  const kind = config.runner.worker.kind;
  if (!isExternalWorkerKind(kind)) return undefined;
  const llmKeyVariable = config.llm.api_key_variable;
  const { worker, credentials } = await createActionWorker({
    kind,
    hostEnv: input.hostEnv,
    withheld: {
      variables: [llmKeyVariable, config.gitlab.token_variable],
      values: [config.gitlab.token, input.hostEnv[llmKeyVariable] ?? ''],
    },
    sandbox: config.runner.worker.sandbox,
    maxRunTimeSec: config.runner.worker.max_run_time_sec,
    shell: input.shell,
    clock: input.clock,
    logger: input.logger,
  });
  for (const value of credentials) input.redactor.add(value);
  return worker;
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

function environmentFor(
  input: ComposeInput,
  llm: LlmPort,
  language: Language,
): EnvironmentStep | undefined {
  const observers = input.observers ?? {};
  const make = input.createEnvironment ?? environmentStep;
  const step = make({
    config: input.config,
    llm,
    shell: observers.setupShell?.(input.shell) ?? input.shell,
    clock: input.clock,
    logger: input.logger,
    redactor: input.redactor,
    hostEnv: input.hostEnv,
    repoDir: input.repoDir,
    marker: markerOf(input),
    language,
  });
  return step ? observedEnvironment(step, observers) : undefined;
}

function markerOf(input: ComposeInput) {
  return {
    ...(input.ci ? { job: input.ci.jobId, pipeline: input.ci.pipelineId } : {}),
    task: input.task.id,
  };
}

function reportingFor(input: ComposeInput, notes: NoteTarget): Promise<Reporting> {
  return startReporting({
    repoDir: input.repoDir,
    config: input.config,
    taskId: input.task.id,
    title: input.task.title,
    runId: input.runId,
    target: notes,
    redactor: input.redactor,
    logger: input.logger,
    clock: input.clock,
    ...(input.ci ? { ci: input.ci } : {}),
    ...(input.issueId ? { issueId: input.issueId } : {}),
    ...(input.planSource ? { planSource: input.planSource } : {}),
    ...(input.artifactUrl ? { artifactUrl: input.artifactUrl } : {}),
    ...(input.answers ? { answers: input.answers } : {}),
    ...(input.requester ? { requester: input.requester } : {}),
  });
}

/**
 * Builds a run: the model (watched when asked), the external worker of
 * `runner.worker.kind` (checked first, N1), the progress note with history,
 * Task Note and result.json, the replan hook (seed 003; review comes with the
 * run, seed 004), the environment phase, the request, delivery — whose GitLab
 * calls end with the run's signal, so nothing is pushed after a cancel — and
 * collapsible log sections. Creates the progress note.
 */
export async function composeRun(input: ComposeInput): Promise<ComposedRun> {
  const { config, clock, logger, redactor } = input;
  const observers = input.observers ?? {};
  const llm = observers.llm?.(input.llm) ?? input.llm;
  const worker = await workerFor(input);
  const notes = observers.noteTarget?.(input.notes) ?? input.notes;
  const reporting = await reportingFor(input, notes);
  const { language } = reporting;
  const environment = environmentFor(input, llm, language);
  const delivery = input.delivery
    ? createDeliveryStep({
        ...input.delivery,
        gitlab: guardGitLab(input.delivery.gitlab, { signal: input.signal }),
        repoDir: input.repoDir,
        notes,
        hostEnv: input.hostEnv,
        branchPrefix: config.delivery.branch_prefix,
        push: config.delivery.push,
        stateDir: config.state.directory,
        marker: markerOf(input),
        language,
        redactor,
        logger,
      })
    : undefined;
  const deps: RunDeps = {
    config,
    llm,
    shell: input.shell,
    clock,
    logger,
    redactor,
    hostEnv: input.hostEnv,
    prompts: promptLibrary(config.prompts.directory, language),
    reporter: reporting.reporter,
    history: reporting.history,
    ...(environment ? { environment } : {}),
    ...(delivery ? { delivery } : {}),
    ...(input.request ? { request: input.request } : {}),
    // LLM-decided replanning (seed 003) when planning.replanning.enabled
    hooks: { replan: reporting.replan, ...observers.hooks },
    ...(observers.tools ? { tools: observers.tools } : {}),
    ...(worker ? { worker } : {}),
    sections: createSectionWriter(input.log, () => clock.now(), input.hostEnv.CI === 'true'),
    signal: input.signal,
  };
  return { deps, reporting };
}
