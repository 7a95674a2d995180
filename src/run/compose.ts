import { meteredLlm, RunBudget } from '../core/budget.ts';
import type { MergeRequestReview } from '../core/merge-request-review.ts';
import { priceOf } from '../llm/pricing.ts';
/**
 * The one composition root of a run: `mr-agent run`, every step of
 * `mr-agent ci` and `mr-agent demo` build their `RunDeps` here, so a
 * capability wired for one entry is wired for all. The entries bring only
 * what is theirs: where notes go, the request and delivery facts from GitLab
 * (CI), the model factory (tests swap it).
 */
import type { Config } from '../config/options.ts';
import type { Clock } from '../core/clock.ts';
import { isolationNotice, type CommandIsolation } from '../core/isolation.ts';
import { versionNotices } from '../gitlab/requirements.ts';
import type { RequestSource } from '../core/gathered.ts';
import type { RunHooks } from '../core/hooks.ts';
import type { LlmPort } from '../core/llm-port.ts';
import type { NoteTarget } from '../core/note-target.ts';
import type { ActionWorker, EnvironmentSetupOutcome, EnvironmentStep } from '../core/ports.ts';
import type { ConversationPort } from '../core/conversation.ts';
import type { Language } from '../messages/language.ts';
import { promptFiles, promptLibrary } from '../llm/prompt-files.ts';
import type { CodeNotRun, RunDeps } from '../core/run-context.ts';
import type { Shell } from '../core/shell-port.ts';
import { guardGitLab } from '../gitlab/request-budget.ts';
import type { Logger } from '../log/logger.ts';
import type { Redactor } from '../log/redact.ts';
import { createSectionWriter } from '../log/sections.ts';
import { beginHandOver, startIsolation } from '../shell/isolation.ts';
import type { DeliveryStepOptions } from '../phases/deliver/step.ts';
import type { NotPushedWhy } from '../report/notes/patch-note.ts';
import type { EnvironmentStepDeps } from '../phases/environment/step.ts';
import type { AnswerSource } from '../phases/replan/index.ts';
import type { TaskSpec } from '../task/task-yaml.ts';
import { gitOnlyShell } from '../shell/git-only-shell.ts';
import { shellCheckout } from '../shell/checkout-port.ts';
import type { Tool } from '../core/tool.ts';
import { isExternalWorkerKind } from '../workers/registry.ts';
import { notesLanguage, startReporting, type Reporting } from './reporting/index.ts';
import { t } from '../messages/catalog.ts';

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
  /** The job log: collapsible sections per phase when `CI=true`. */
  log: (text: string) => void;
  /** CI facts for the note marker and links (absent locally). */
  ci?: { jobId: string; pipelineId: string; jobUrl?: string | undefined } | undefined;
  /** The MR/issue the run belongs to (history continuity, I1). */
  issueId?: string | undefined;
  /** The earlier task whose plan the run may reuse. */
  planSource?: string | undefined;
  artifactUrl?: ((file: string) => string | undefined) | undefined;
  /** Replies to a ❓ question (GitLab); absent: no waiting. */
  answers?: AnswerSource | undefined;
  /** Who asked (a GitLab username), @mentioned where an answer is needed. */
  requester?: string | undefined;
  /** GitLab's version (CI): what it lacks of the job's features goes into the note. */
  gitlabVersion?: string | undefined;
  /** The request from GitLab (CI); absent: the task is the request. */
  request?: RequestSource | undefined;
  /** Absent: nothing is committed or pushed (local runs). */
  delivery?: GitLabDelivery | undefined;
  observers?: RunObservers | undefined;
  /**
   * Whether `/agent pause` asked this run to pause, given its progress note's
   * id (CI: the ⏸ award on that note); absent: the run cannot be paused.
   */
  pauseAsked?: ((progressNoteId: string) => Promise<boolean>) | undefined;
  /** USD the earlier runs on this merge request or issue spent (`budget.mr_max_usd`). */
  mrSpentUsd?: number | undefined;
  /** What people say during the run (CI: the notes on GitLab); absent: nobody is heard. */
  conversation?: ConversationPort | undefined;
  /** Replaces the environment phase (tests). */
  createEnvironment?: ((deps: EnvironmentStepDeps) => EnvironmentStep | undefined) | undefined;
  /**
   * None of the checkout's code may run (a fork's merge request,
   * docs/security.md): the shell runs git only, setup is skipped, `run_command` is not
   * offered, no external worker, verification runs no tests, and delivery
   * posts a patch instead of pushing.
   */
  codeNotRun?: CodeNotRun | undefined;
  /** Keys the user-config API sent but may not set: named in one line of the progress note. */
  refusedUserSettings?: readonly string[] | undefined;
  /** The merge request a review-only run reviews (`/agent review`); the notes' language is added here. */
  mergeRequestReview?: Omit<MergeRequestReview, 'language'> | undefined;
  /**
   * The notes' language, decided once from what people wrote (CI:
   * src/ci/request-language.ts); absent: `notes.language`, `auto` following the task.
   */
  language?: Language | undefined;
}

export interface ComposedRun {
  deps: RunDeps;
  reporting: Reporting;
}

/** The external coding CLI of `runner.worker.kind`, checked before the note is created. */
async function workerFor(
  input: ComposeInput,
  isolation: CommandIsolation,
): Promise<ActionWorker | undefined> {
  const { config } = input;
  const kind = config.runner.worker.kind;
  if (!isExternalWorkerKind(kind)) return undefined;
  if (input.codeNotRun) {
    // an external coding CLI runs commands of its own choosing in the checkout
    input.logger.warn('external worker not used: the checkout must not run', { kind });
    return undefined;
  }
  const llmKeyVariable = config.llm.api_key_variable;
  const { createActionWorker } = await import('../workers/action-worker.ts');
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
    isolation,
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

async function environmentFor(
  input: ComposeInput,
  llm: LlmPort,
  shell: Shell,
  language: Language,
  isolation: CommandIsolation,
): Promise<EnvironmentStep | undefined> {
  const observers = input.observers ?? {};
  const make =
    input.createEnvironment ?? (await import('../phases/environment/step.ts')).environmentStep;
  const notRun = input.codeNotRun;
  const config = notRun
    ? { ...input.config, environment: { ...input.config.environment, setup_enabled: false } }
    : input.config;
  const made = make({
    config,
    llm,
    shell: observers.setupShell?.(shell) ?? shell,
    clock: input.clock,
    logger: input.logger,
    redactor: input.redactor,
    hostEnv: input.hostEnv,
    repoDir: input.repoDir,
    tracked: async (root: string) => (await import('../shell/git-tracked.ts')).gitTrackedText(root),
    prompts: promptFiles(input.config.prompts.directory),
    marker: markerOf(input),
    language,
    isolation,
  });
  const step =
    made && notRun
      ? (await import('./code-not-run.ts')).notRunEnvironment(
          made,
          notRun,
          input.config.prompts.directory,
        )
      : made;
  return step ? observedEnvironment(step, observers) : undefined;
}

/** The progress note's notice for a checkout that must not run, in the notes' language. */
function codeNotRunNotice(notRun: CodeNotRun, language: Language): string {
  const n = notRun.notice;
  return n.kind === 'fork-patch'
    ? t(language, 'notice.forkPatch')
    : t(language, 'notice.forkProtectedRef', { ref: `\`${n.ref}\`` });
}

const SHOWN_REFUSED_KEYS = 12;

/** The progress note's line naming the user-config API's refused keys, each as code. */
/** What the patch note says, in the note's language, about a fork whose code was not run. */
function notPushedWhy(notRun: CodeNotRun): NotPushedWhy {
  return notRun.notice.kind === 'fork-patch'
    ? { kind: 'fork-policy' }
    : { kind: 'fork-protected-ref', ref: notRun.notice.ref };
}

function refusedSettingsNotice(keys: readonly string[], language: Language): string {
  const shown = keys.slice(0, SHOWN_REFUSED_KEYS).map((k) => `\`${k.replace(/`/g, "'")}\``);
  const more = keys.length - shown.length;
  return t(language, 'notice.userSettingsRefused', {
    keys: more > 0 ? `${shown.join(', ')} (+${more})` : shown.join(', '),
  });
}

/** The tools the model is offered: without `run_command` when the checkout must not run. */
async function toolsFor(input: ComposeInput): Promise<Tool[] | undefined> {
  const tools = input.observers?.tools;
  if (!input.codeNotRun) return tools;
  return (await import('./code-not-run.ts')).withoutCommands(tools);
}

function markerOf(input: ComposeInput) {
  return {
    ...(input.ci ? { job: input.ci.jobId, pipeline: input.ci.pipelineId } : {}),
    task: input.task.id,
  };
}

function reportingFor(
  input: ComposeInput,
  notes: NoteTarget,
  isolation: CommandIsolation,
): Promise<Reporting> {
  // what the first version of the note must already say: commands refused, a fork's code not run
  const language = notesLanguage({
    config: input.config,
    title: input.task.title,
    language: input.language,
  });
  const notices = [
    isolationNotice(isolation, language),
    input.codeNotRun ? codeNotRunNotice(input.codeNotRun, language) : undefined,
    input.refusedUserSettings?.length
      ? refusedSettingsNotice(input.refusedUserSettings, language)
      : undefined,
    ...(input.gitlabVersion ? versionNotices(input.gitlabVersion, language) : []),
  ].filter((n): n is string => n !== undefined);
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
    ...(notices.length > 0 ? { notices } : {}),
    ...(input.requester ? { requester: input.requester } : {}),
    language,
  });
}

/**
 * Who runs the commands: another user when the agent runs as
 * root, else the agent's own user — refused unless `security.isolation:
 * accept-risk`. Logged once, shown in the progress note when not isolated.
 */
async function isolationFor(input: ComposeInput): Promise<CommandIsolation> {
  const isolation = await startIsolation({
    security: input.config.security,
    checkout: input.repoDir,
    stateDir: input.config.state.directory,
    secrets: [
      input.config.gitlab.token,
      input.hostEnv.CI_JOB_TOKEN,
      input.hostEnv[input.config.llm.api_key_variable],
    ].filter((value): value is string => Boolean(value)),
    // `auto`: refused in a CI job, accepted for a local run (the user's own secrets)
    local: !input.ci,
  });
  if (isolation.kind === 'separate-user')
    input.logger.info('commands run as another user', {
      user: isolation.user.name,
      uid: isolation.user.uid,
    });
  else input.logger.warn('commands are not isolated', { ...isolation });
  return isolation;
}

/**
 * Builds a run: the model (watched when asked), the external worker of
 * `runner.worker.kind` (checked first, N1), the progress note with history,
 * Task Note and result.json, the replan hook (review comes with the
 * run), the environment phase, the request, delivery — whose GitLab
 * calls end with the run's signal, so nothing is pushed after a cancel — and
 * collapsible log sections. Creates the progress note.
 */
export async function composeRun(input: ComposeInput): Promise<ComposedRun> {
  const { config, clock, logger, redactor } = input;
  const observers = input.observers ?? {};
  const budget = runBudgetFor(input);
  const observed = observers.llm?.(input.llm) ?? input.llm;
  const llm = budget ? meteredLlm(observed, budget) : observed;
  const isolation = await isolationFor(input);
  const worker = await workerFor(input, isolation);
  const notes = observers.noteTarget?.(input.notes) ?? input.notes;
  const reporting = await reportingFor(input, notes, isolation);
  beginHandOver(isolation);
  if (budget) {
    const reporter = reporting.reporter;
    reporter.budget?.(budget.spend());
    budget.onSpend((spend) => reporter.budget?.(spend));
  }
  const { language } = reporting;
  const notRun = input.codeNotRun;
  const shell = notRun ? gitOnlyShell(input.shell, notRun.reason) : input.shell;
  // the phases' own modules load once the progress note is posted
  const environment = await environmentFor(input, llm, shell, language, isolation);
  const tools = await toolsFor(input);
  const delivery = input.delivery
    ? (await import('../phases/deliver/step.ts')).createDeliveryStep({
        ...input.delivery,
        gitlab: guardGitLab(input.delivery.gitlab, { signal: input.signal }),
        repoDir: input.repoDir,
        notes,
        hostEnv: input.hostEnv,
        shell: input.shell,
        checkout: shellCheckout,
        branchPrefix: config.delivery.branch_prefix,
        push: config.delivery.push,
        stateDir: config.state.directory,
        marker: markerOf(input),
        language,
        redactor,
        logger,
        ...(notRun ? { patchOnly: notRun.reason, patchOnlyWhy: notPushedWhy(notRun) } : {}),
        ...(input.requester ? { requester: input.requester } : {}),
      })
    : undefined;
  const checkpoints =
    input.delivery && config.delivery.push
      ? (await import('../phases/deliver/checkpoint-ref.ts')).createCheckpointRefs({
          repoDir: input.repoDir,
          shell: input.shell,
          checkout: shellCheckout,
          hostEnv: input.hostEnv,
          redactor,
          logger,
          token: input.delivery.token,
          remoteUrl: input.delivery.project.httpUrlToRepo,
          target: input.delivery.target,
          runId: input.runId,
          stateDir: config.state.directory,
          author: input.delivery.author,
          now: () => clock.now(),
        })
      : undefined;
  const deps: RunDeps = {
    config,
    llm,
    shell,
    clock,
    logger,
    redactor,
    hostEnv: input.hostEnv,
    isolation,
    prompts: promptLibrary(config.prompts.directory, language),
    language,
    checkout: shellCheckout,
    reporter: reporting.reporter,
    history: reporting.history,
    ...(environment ? { environment } : {}),
    ...(delivery ? { delivery } : {}),
    ...(input.request ? { request: input.request } : {}),
    // LLM-decided replanning when planning.replanning.enabled
    hooks: { replan: reporting.replan, ...observers.hooks },
    ...(tools ? { tools } : {}),
    ...(worker ? { worker } : {}),
    ...(notRun ? { codeNotRun: notRun } : {}),
    sections: createSectionWriter(input.log, () => clock.now(), input.hostEnv.CI === 'true'),
    signal: input.signal,
    ...pauseDep(input, reporting),
    ...(budget ? { budget } : {}),
    ...(input.conversation ? { conversation: input.conversation } : {}),
    ...(input.mergeRequestReview
      ? {
          mergeRequestReview: {
            ...input.mergeRequestReview,
            gitlab: guardGitLab(input.mergeRequestReview.gitlab, { signal: input.signal }),
            language,
          },
        }
      : {}),
    ...(checkpoints ? { checkpoints } : {}),
  };
  return { deps, reporting };
}

/** The run's budget from `budget.*` and what earlier runs on the MR or issue spent; none when unset. */
function runBudgetFor(input: ComposeInput): RunBudget | undefined {
  const b = input.config.budget;
  const budget = new RunBudget({
    maxUsd: b.max_usd ?? undefined,
    maxTokens: b.max_tokens ?? undefined,
    mrMaxUsd: b.mr_max_usd ?? undefined,
    mrSpentUsd: input.mrSpentUsd ?? 0,
  });
  if (!budget.active) return undefined;
  const priced =
    priceOf(input.config.llm) !== undefined ||
    input.config.llm.profiles.some((p) => priceOf(input.config.llm, p.price) !== undefined);
  if (!priced && (b.max_usd !== null || b.mr_max_usd !== null))
    input.logger.warn(
      'a USD budget is set but no model has prices (llm.price.*): only budget.max_tokens applies',
    );
  return budget;
}

/** `pauseRequested`, asked about the run's own progress note once it has one. */
function pauseDep(input: ComposeInput, reporting: Reporting): Pick<RunDeps, 'pauseRequested'> {
  const asked = input.pauseAsked;
  if (!asked) return {};
  return {
    pauseRequested: async () => {
      const noteId = reporting.publisher.noteId;
      return noteId ? asked(noteId) : false;
    },
  };
}
