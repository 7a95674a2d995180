import type { Config } from '../../config/options.ts';
import type { EnvironmentPromptName, PromptFiles } from '../../core/prompts.ts';
import { CancelledError } from '../../errors/errors.ts';
import { describeError } from '../../errors/catalog.ts';
import type { LlmPort } from '../../core/llm-port.ts';
import type { NoteMarker } from '../../report/marker.ts';
import type { Language } from '../../messages/language.ts';
import type { Classification } from './classify.ts';
import { t } from '../../messages/catalog.ts';
import { inlineCode } from '../../report/markdown.ts';
import type { StopReason } from '../../report/notes/environment-failure-note.ts';
import { renderFailureNote } from './failure-note.ts';
import { regenerateSetup, type SetupFailure } from './regenerate.ts';
import {
  outputTail,
  runWithRetries,
  type CommandRecord,
  type RetryCounts,
  type RunnerDeps,
} from './run-command.ts';
import type {
  EnvironmentHandoff,
  EnvironmentName,
  VerificationCheck,
} from '../../core/environment.ts';
import { runVerification } from './verify.ts';

/** What to set up: the resolved selection (see select.ts). */
export interface SetupPlan {
  name: EnvironmentName;
  setup_commands: readonly string[];
  verification: readonly VerificationCheck[];
  detected_files?: readonly string[];
  /** The checks are detection's own read-only probes: the first round runs them side by side (verify.ts). */
  checks_detected?: boolean;
}

export interface SetupDeps extends RunnerDeps {
  llm: LlmPort;
  /** `environment.max_regenerations` (seed: 3). */
  maxRegenerations?: number;
  /** `environment.setup_enabled`; false hands over `skipped` without running anything. */
  enabled?: boolean;
  /** The prompt of the repair request (`prompts.directory` overriding the shipped one). */
  prompts: PromptFiles<EnvironmentPromptName>;
  /** Fields of the failure note's marker (job, pipeline, task). */
  marker?: Omit<NoteMarker, 'kind'>;
  /** The failure note's language. */
  language?: Language;
}

export interface EnvironmentSetupResult {
  handoff: EnvironmentHandoff;
  /** Every command and check as it ran, in order. */
  records: CommandRecord[];
  regenerations: number;
  maxRegenerations: number;
  retries: RetryCounts;
  /** The commands and checks of the last round (after regenerations). */
  setupCommands: string[];
  verification: VerificationCheck[];
  /** The classification of the final failure. */
  classification?: Classification;
  /** The "environment setup failed" note for the caller to post (NoteTarget); only on failure. */
  note?: string;
}

type RoundResult = { failure: SetupFailure; record: CommandRecord } | undefined;

async function runRound(
  plan: { commands: readonly string[]; checks: readonly VerificationCheck[]; sideBySide: boolean },
  round: number,
  deps: SetupDeps,
  state: { records: CommandRecord[]; retries: RetryCounts },
): Promise<RoundResult> {
  for (const command of plan.commands) {
    const { result, attempts, classification } = await runWithRetries(command, deps, state.retries);
    const record: CommandRecord = {
      stage: 'setup',
      round,
      command,
      exitCode: result.exitCode,
      durationMs: result.durationMs,
      outputTail: outputTail(result, deps.redactor),
      attempts,
    };
    if (classification) record.classification = classification;
    state.records.push(record);
    deps.onRecord?.(record);
    if (!classification) continue;
    return {
      record,
      failure: {
        stage: 'setup',
        command,
        exitCode: result.exitCode,
        classification,
        outputTail: record.outputTail,
      },
    };
  }
  const checks = await runVerification(plan.checks, round, deps, state.retries, {
    sideBySide: plan.sideBySide,
  });
  state.records.push(...checks);
  const failed = checks.find((c) => !c.matched);
  if (!failed) return undefined;
  const failure: SetupFailure = {
    stage: 'verification',
    command: failed.command,
    exitCode: failed.exitCode,
    classification: failed.classification!,
    outputTail: failed.outputTail,
  };
  if (failed.exitCode === 0)
    Object.assign(failure, { expected: failed.expected, actual: failed.actual });
  return { record: failed, failure };
}

/** Why setup stopped, as a catalog message (the note translates it; the log has it in English). */
function stopReason(
  failure: SetupFailure,
  regenerations: number,
  max: number,
  llmError?: string,
): Exclude<StopReason, string> {
  if (llmError) return { key: 'envStop.llmFailed', params: { error: inlineCode(llmError) } };
  const c = failure.classification;
  if (c.kind === 'unreachable-host') return { key: 'envStop.unreachableHost' };
  if (c.class === 'fatal') return { key: 'envStop.fatal' };
  if (c.class === 'retryable') return { key: 'envStop.retries', params: { kind: c.kind } };
  return regenerations >= max
    ? { key: 'envStop.regenerations', params: { count: max } }
    : { key: 'envStop.stopped' };
}

/**
 * The environment setup sub-phase: runs the
 * setup commands one by one, retries retryable failures, asks the model for
 * corrected commands on fixable failures and verification mismatches (at
 * most `maxRegenerations` times), verifies by exact match, and on final
 * failure renders the "environment setup failed" note and hands over
 * `setup_status: failed` so the run continues with a warning.
 */
export async function setupEnvironment(
  plan: SetupPlan,
  deps: SetupDeps,
): Promise<EnvironmentSetupResult> {
  const max = deps.maxRegenerations ?? 3;
  const state = {
    records: [] as CommandRecord[],
    retries: { network: 0, 'server-error': 0, lock: 0 } as RetryCounts,
  };
  let current: Commands = { commands: [...plan.setup_commands], checks: [...plan.verification] };
  let regenerations = 0;
  const partial = () => ({
    records: state.records,
    maxRegenerations: max,
    retries: state.retries,
    regenerations,
    setupCommands: current.commands,
    verification: current.checks,
  });
  if (deps.enabled === false) {
    deps.logger.info('environment setup skipped', { environment: plan.name });
    return { ...partial(), handoff: handoff(plan.name, 'skipped') };
  }
  for (let round = 0; ; round += 1) {
    // a regeneration's checks are the model's: they may build, so they run one by one
    const sideBySide = round === 0 && plan.checks_detected === true;
    const outcome = await guard(deps, () =>
      runRound({ ...current, sideBySide }, round, deps, state),
    );
    if (!outcome) {
      deps.logger.info('environment ready', { environment: plan.name, regenerations });
      return { ...partial(), handoff: handoff(plan.name, 'success') };
    }
    const { classification } = outcome.failure;
    deps.logger.warn('environment setup failed', {
      command: outcome.failure.command,
      class: classification.class,
      kind: classification.kind,
    });
    if (classification.class !== 'fixable' || regenerations >= max) {
      return failed(plan, deps, partial(), outcome, undefined);
    }
    regenerations += 1;
    const fixed = await askForFix(plan, outcome.failure, current, regenerations, max, deps);
    if (typeof fixed === 'string') return failed(plan, deps, partial(), outcome, fixed);
    current = fixed;
  }
}

interface Commands {
  commands: string[];
  checks: VerificationCheck[];
}

function handoff(name: EnvironmentName, status: 'success' | 'skipped'): EnvironmentHandoff {
  return {
    environment_ready: status === 'success',
    environment_name: name,
    setup_status: status,
    errors: [],
  };
}

/** One regeneration: the corrected commands, or the error text when the model could not be asked. */
async function askForFix(
  plan: SetupPlan,
  failure: SetupFailure,
  current: Commands,
  attempt: number,
  max: number,
  deps: SetupDeps,
): Promise<Commands | string> {
  try {
    const reply = await regenerateSetup(
      {
        environment: plan.name,
        failure,
        setupCommands: current.commands,
        verification: current.checks,
        detectedFiles: plan.detected_files ?? [],
        attempt,
        maxAttempts: max,
      },
      {
        llm: deps.llm,
        ...(deps.redactor ? { redactor: deps.redactor } : {}),
        prompts: deps.prompts,
        ...(deps.signal ? { signal: deps.signal } : {}),
      },
    );
    deps.logger.info('setup commands regenerated', {
      regeneration: attempt,
      commands: reply.setup_commands.length,
    });
    return { commands: reply.setup_commands, checks: reply.verification };
  } catch (error) {
    if (error instanceof CancelledError || deps.signal?.aborted) throw asCancelled(error);
    const message = describeError(error).message;
    deps.logger.warn('setup regeneration failed', { error: message });
    return message;
  }
}

function failed(
  plan: SetupPlan,
  deps: SetupDeps,
  partial: Omit<EnvironmentSetupResult, 'handoff' | 'note' | 'classification'>,
  last: NonNullable<RoundResult>,
  llmError: string | undefined,
): EnvironmentSetupResult {
  const { failure } = last;
  const reason = stopReason(failure, partial.regenerations, partial.maxRegenerations, llmError);
  const error = `${failure.stage} command \`${failure.command}\` failed (${failure.classification.class}: ${failure.classification.kind}): ${failure.classification.evidence}`;
  const note = renderFailureNote({
    environment: plan.name,
    command: failure.command,
    exitCode: failure.exitCode,
    output: failure.outputTail,
    classification: failure.classification,
    retries: partial.retries,
    regenerations: partial.regenerations,
    maxRegenerations: partial.maxRegenerations,
    stopReason: reason,
    ...(deps.marker ? { marker: deps.marker } : {}),
    ...(deps.redactor ? { redactor: deps.redactor } : {}),
    ...(deps.language ? { language: deps.language } : {}),
  });
  const errors = [
    deps.redactor ? deps.redactor.redact(error) : error,
    ...(llmError ? [llmError] : []),
  ];
  deps.logger.warn('environment setup gave up; continuing with a warning', {
    environment: plan.name,
    reason: t('en', reason.key, reason.params),
  });
  return {
    ...partial,
    classification: failure.classification,
    note,
    handoff: {
      environment_ready: false,
      environment_name: plan.name,
      setup_status: 'failed',
      errors,
    },
  };
}

function asCancelled(error: unknown): CancelledError {
  return error instanceof CancelledError
    ? error
    : new CancelledError('environment setup was cancelled', { cause: error });
}

/** Turns an abort during a sleep or a command into CancelledError. */
async function guard<T>(deps: SetupDeps, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (deps.signal?.aborted) throw asCancelled(error);
    throw error;
  }
}

/** The setup settings of the configuration (`environment.*`). */
export function setupSettings(
  config: Config,
): Pick<SetupDeps, 'maxRegenerations' | 'timeoutMs' | 'enabled'> {
  return {
    maxRegenerations: config.environment.max_regenerations,
    timeoutMs: config.environment.setup_timeout_sec * 1000,
    enabled: config.environment.setup_enabled,
  };
}
