import type { Config } from '../../config/options.ts';
import type { EnvironmentPromptName, PromptFiles } from '../../core/prompts.ts';
import type { PortDeps } from '../../core/run-context.ts';
import type { TrackedFiles } from '../../core/tracked-files.ts';
import { detectEnvironment } from './detect-environment.ts';
import type {
  EnvironmentDetection,
  EnvironmentHandoff,
  EnvironmentName,
} from '../../core/environment.ts';
import { detectEnvironmentTestCommand } from './test-command.ts';
import { environmentRunner } from './runner.ts';
import { renderEnvironmentSection } from './section.ts';
import { selectEnvironment } from './select.ts';
import { setupEnvironment, setupSettings, type EnvironmentSetupResult } from './setup.ts';
import type { NoteMarker } from '../../report/marker.ts';
import type { Language } from '../../messages/language.ts';
import { sandboxEnv } from '../../shell/sandbox-env.ts';
import { commandsRefused, type CommandIsolation } from '../../core/isolation.ts';
import type { EnvironmentSetupOutcome, EnvironmentStep } from '../../core/ports.ts';
import type { CommandRecord } from './run-command.ts';

export interface EnvironmentStepDeps extends PortDeps {
  config: Config;
  repoDir: string;
  /** Reads the git index for detection (without it the checkout is walked). */
  tracked?: TrackedFiles | undefined;
  /** The phase's prompt files (`prompts.directory` overriding the shipped ones). */
  prompts: PromptFiles<EnvironmentPromptName>;
  /** Job, pipeline and task for the failure note's marker. */
  marker?: Omit<NoteMarker, 'kind'>;
  /** The notes' language (the failure note is written in it). */
  language?: Language;
  /** Who runs the setup commands (the unprivileged command user, docs/security.md); when refused, setup is skipped. */
  isolation?: CommandIsolation;
  /** Told of each setup command and check as it finishes. */
  onRecord?: (record: CommandRecord) => void;
  /** A detection already made of `repoDir` (`mr-agent setup` detects first to say what it found). */
  detected?: EnvironmentDetection;
}

/** What the run reports of a setup: counts, duration and why it failed or what was adjusted. */
function setupOutcome(
  result: EnvironmentSetupResult,
  warnings: readonly string[],
  durationMs: number,
): EnvironmentSetupOutcome {
  const checks = result.records.filter((r) => r.stage === 'verification');
  const finalChecks = checks.filter((r) => r.round === result.regenerations);
  return {
    handoff: result.handoff,
    ...(result.note ? { failureNote: result.note } : {}),
    setupCommands: result.setupCommands.length,
    verificationsPassed: finalChecks.filter((r) => r.matched).length,
    verificationsTotal: result.verification.length,
    durationMs,
    ...(result.classification
      ? { detail: `${result.classification.class} (${result.classification.kind})` }
      : warnings.length > 0
        ? { detail: warnings.join('; ') }
        : {}),
  };
}

/**
 * The one hand-off value: the setup's status plus how
 * commands run inside the environment, its package manager and its test
 * command.
 */
async function completeHandoff(
  result: EnvironmentSetupResult,
  name: EnvironmentName,
  detection: EnvironmentDetection,
  repoDir: string,
): Promise<EnvironmentHandoff> {
  const proposal = detection.proposals[name];
  const projectDirs = proposal?.project_dirs ?? [];
  const packageManager = proposal?.package_manager || undefined;
  const runner = await environmentRunner({
    name,
    setupStatus: result.handoff.setup_status,
    setupCommands: result.setupCommands,
    checkCommands: result.verification.map((c) => c.command),
    repoDir,
    projectDirs,
  });
  // what the project's own CI (or task runner, or docs) runs wins over a guess from build files
  const fromCi =
    detection.environment_type === name && detection.test_command
      ? { command: detection.test_command.command, cwd: '.' }
      : undefined;
  const test =
    fromCi ?? (await detectEnvironmentTestCommand(repoDir, { name, packageManager, projectDirs }));
  return {
    ...result.handoff,
    ...(runner ? { runner } : {}),
    ...(packageManager ? { package_manager: packageManager } : {}),
    ...(test ? { test_command: test } : {}),
  };
}

/**
 * The environment phase of src/phases/environment/ as the run's step:
 * detection during pre-planning, then selection and setup with
 * retries and regeneration, and the execution-prompt section.
 */
export function environmentStep(deps: EnvironmentStepDeps): EnvironmentStep {
  let detection: EnvironmentDetection | undefined = deps.detected;
  const detectOnce = async () =>
    (detection ??= await detectEnvironment(deps.repoDir, { tracked: deps.tracked }));
  return {
    async detect() {
      const found = await detectOnce();
      return found.reasons.length === 0 && Object.keys(found.detected_files).length === 0
        ? undefined
        : found;
    },
    async setup(selected, signal) {
      const started = deps.clock.now();
      const detected = await detectOnce();
      const selection = selectEnvironment({
        planned: selected,
        detection: detected,
        configured: deps.config.environment.name,
      });
      for (const warning of selection.warnings)
        deps.logger.warn('environment selection', { warning });
      const refused = commandsRefused(deps.isolation);
      if (refused) deps.logger.warn('environment setup skipped', { reason: refused });
      const result = await setupEnvironment(
        {
          name: selection.name,
          setup_commands: selection.setup_commands,
          verification: selection.verification,
          detected_files: selection.detected_files,
          checks_detected: selection.defaulted.includes('verification'),
        },
        {
          shell: deps.shell,
          clock: deps.clock,
          logger: deps.logger,
          redactor: deps.redactor,
          cwd: deps.repoDir,
          env: sandboxEnv(deps.hostEnv),
          llm: deps.llm,
          prompts: deps.prompts,
          ...setupSettings(deps.config),
          ...(refused ? { enabled: false } : {}),
          ...(deps.isolation ? { isolation: deps.isolation } : {}),
          ...(deps.onRecord ? { onRecord: deps.onRecord } : {}),
          ...(deps.marker ? { marker: deps.marker } : {}),
          ...(deps.language ? { language: deps.language } : {}),
          ...(signal ? { signal } : {}),
        },
      );
      const handoff = await completeHandoff(result, selection.name, detected, deps.repoDir);
      const warnings = refused ? [refused, ...selection.warnings] : selection.warnings;
      return setupOutcome({ ...result, handoff }, warnings, deps.clock.now() - started);
    },
    executionSection(handoff) {
      return renderEnvironmentSection(handoff, { prompts: deps.prompts, redactor: deps.redactor });
    },
  };
}
