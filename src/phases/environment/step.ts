import path from 'node:path';
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
import { inEnvironment } from '../../shell/in-environment.ts';
import { inlineCode } from '../../core/text.ts';
import { olderNodeForTests, testsRan } from './older-node-tests.ts';

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
  /**
   * Whether tests that run none on the Node on PATH switch the environment to
   * the older Node the project's pins stop at (`older-node-tests.ts`);
   * default true. `mr-agent setup` turns it off: it tries the older Node
   * after its own test run.
   */
  olderNode?: boolean;
  /** Where an older Node is installed (`$XDG_CACHE_HOME`, else the command user's `~/.cache`). */
  toolCache?: string;
}

/** What the run reports of a setup: counts, duration and why it failed or what was adjusted. */
function setupOutcome(
  result: EnvironmentSetupResult,
  warnings: readonly string[],
  durationMs: number,
  olderNode?: EnvironmentSetupOutcome['olderNode'],
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
    ...(olderNode ? { olderNode } : {}),
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

/** The tool cache of the commands' user: `$XDG_CACHE_HOME`, else `~/.cache` (the command user's private home). */
function toolCacheOf(deps: EnvironmentStepDeps): string | undefined {
  if (deps.toolCache) return deps.toolCache;
  if (deps.isolation?.kind === 'separate-user')
    return path.join(deps.isolation.user.home, '.cache');
  const xdg = deps.hostEnv.XDG_CACHE_HOME;
  if (xdg && path.isAbsolute(xdg)) return xdg;
  return deps.hostEnv.HOME ? path.join(deps.hostEnv.HOME, '.cache') : undefined;
}

/**
 * A Node project whose tests run none on the Node on PATH, and whose pins
 * stop at an older major, gets that major first on PATH for every later
 * command (the runner), as `mr-agent setup` runs its tests: the tool
 * commands, the verification's test command. Anything else keeps the
 * hand-off as it is.
 */
async function withOlderNode(
  handoff: EnvironmentHandoff,
  detection: EnvironmentDetection,
  deps: EnvironmentStepDeps,
  signal: AbortSignal | undefined,
): Promise<{ handoff: EnvironmentHandoff; olderNode?: EnvironmentSetupOutcome['olderNode'] }> {
  const test = handoff.test_command;
  const pins = (detection.proposals[handoff.environment_name]?.versions ?? []).filter(
    (p) => p.language === 'node',
  );
  const toolCache = toolCacheOf(deps);
  if (handoff.setup_status !== 'success' || !test || handoff.runner || pins.length === 0)
    return { handoff };
  if (!toolCache || commandsRefused(deps.isolation)) return { handoff };
  const inside = inEnvironment(test.command, deps.hostEnv, undefined);
  const found = await olderNodeForTests({
    shell: deps.shell,
    clock: deps.clock,
    env: inside.env,
    command: inside.command,
    cwd: path.join(deps.repoDir, test.cwd),
    pins,
    toolCache,
    timeoutMs: deps.config.environment.setup_timeout_sec * 1000,
    ...(deps.isolation ? { isolation: deps.isolation } : {}),
    ...(signal ? { signal } : {}),
  });
  if (!found) return { handoff };
  const { node, current } = found;
  if (!found.bin || !found.tests || !testsRan(found.tests.exitCode, found.tests.testsRun)) {
    deps.logger.warn('the tests ran none on the Node on PATH, nor on the older Node', {
      command: test.command,
      node: current,
      needs: node.major,
      because: node.because,
      ...(found.install && found.install.exitCode !== 0
        ? { install: found.install.command, output: deps.redactor.redact(found.install.outputTail) }
        : {}),
    });
    return { handoff };
  }
  deps.logger.info('the tests run on an older Node', {
    command: test.command,
    node: node.major,
    because: node.because,
    insteadOf: current,
    testsRun: found.tests.testsRun,
  });
  const runner = {
    wrap: [],
    path: [found.bin],
    env: {},
    // `because` names a file of the repository: a code span it cannot break out of
    description: `Node ${node.major} runs first on PATH (installed from the npm registry into the tool cache): the project's tests ran none on Node ${current}; ${inlineCode(node.because.slice(0, 200))}.`,
  };
  return {
    handoff: { ...handoff, runner },
    olderNode: { major: node.major, current, because: node.because },
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
      const completed = await completeHandoff(result, selection.name, detected, deps.repoDir);
      const { handoff, olderNode } =
        deps.olderNode === false
          ? { handoff: completed }
          : await withOlderNode(completed, detected, deps, signal);
      const warnings = refused ? [refused, ...selection.warnings] : selection.warnings;
      return setupOutcome({ ...result, handoff }, warnings, deps.clock.now() - started, olderNode);
    },
    executionSection(handoff) {
      return renderEnvironmentSection(handoff, { prompts: deps.prompts, redactor: deps.redactor });
    },
  };
}
