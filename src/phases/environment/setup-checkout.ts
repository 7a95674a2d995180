import { existsSync, lstatSync, mkdirSync, symlinkSync } from 'node:fs';
import type { EnvironmentPromptName, PromptFiles } from '../../core/prompts.ts';
import path from 'node:path';
import type { Config } from '../../config/options.ts';
import type { PortDeps } from '../../core/run-context.ts';
import type { EnvironmentHandoff, EnvironmentName } from '../../core/environment.ts';
import type { TrackedFiles } from '../../core/tracked-files.ts';
import { inEnvironment } from '../../shell/in-environment.ts';
import { sandboxEnv } from '../../shell/sandbox-env.ts';
import { detectEnvironment } from './detect-environment.ts';
import type { CommandRecord } from './run-command.ts';
import { testsOnOlderNode, testsRan, type OlderNodeTests } from './older-node-tests.ts';
import { environmentStep } from './step.ts';
import { testsRun } from './tests-run.ts';

/**
 * A local checkout set up the way the job sets up its own (`mr-agent
 * setup`): the same detection, commands, classified retries, exact-match
 * checks and, when a model is configured, regeneration (the environment
 * step of step.ts), then the project's test command run until it shows that
 * tests run. Two things differ so that nothing outside the folder and the
 * tools' caches changes: corepack's shims go to a private folder in the tool
 * cache (first on PATH), and a Python project gets a `.venv` in the checkout
 * when no virtualenv is active.
 */

export interface CheckoutSetupDeps extends PortDeps {
  repoDir: string;
  config: Config;
  /** The environment phase's prompt files (`prompts.directory` overriding the shipped ones). */
  prompts: PromptFiles<EnvironmentPromptName>;
  /** Reads the git index for detection (without it the folder is walked). */
  tracked?: TrackedFiles | undefined;
  /** The user's tool cache folder (`$XDG_CACHE_HOME` or `~/.cache`); mr-agent keeps its shims below it. */
  toolCache: string;
  /** Told of each setup command and check as it finishes, and of the test command as it starts. */
  onRecord?: (record: CommandRecord) => void;
  onTests?: (command: string) => void;
  signal?: AbortSignal;
}

export interface CommandReport {
  stage: 'prepare' | 'setup' | 'verification';
  command: string;
  exit_code: number | null;
  duration_ms: number;
  attempts: number;
}

export interface CheckoutSetupReport {
  status: 'ready' | 'failed';
  environment: EnvironmentName | null;
  package_manager: string | null;
  commands: CommandReport[];
  verification: { passed: boolean; expected: string[]; got: (string | null)[] };
  tests: {
    command: string;
    exit_code: number | null;
    tests_run: number | null;
    /** The older Node major the tests ran with, when they ran none on the Node on PATH. */
    node_version?: number;
  } | null;
  /** One line: what went wrong and where (absent when ready). */
  problem?: string;
  /** The exit code of `mr-agent setup`: 0 ready, 1 setup failed, 2 nothing to set up. */
  exit_code: 0 | 1 | 2;
}

const BROKEN_MANIFEST = /^(?:(.+?)\/: )?(.+?) is not valid (JSON|TOML|YAML)(?: \((.*)\))?$/;

const emptyReport = (
  problem: string,
  exit: 1 | 2,
  environment: EnvironmentName | null = null,
): CheckoutSetupReport => ({
  status: 'failed',
  environment,
  package_manager: null,
  commands: [],
  verification: { passed: false, expected: [], got: [] },
  tests: null,
  problem,
  exit_code: exit,
});

/** The folder on PATH that receives corepack's shims, with a link to the host's corepack. */
function corepackShims(toolCache: string, hostPath: string): string | undefined {
  const real = hostPath
    .split(':')
    .filter(Boolean)
    .map((dir) => path.join(dir, 'corepack'))
    .find((file) => existsSync(file));
  if (!real) return undefined;
  const bin = path.join(toolCache, 'mr-agent', 'bin');
  mkdirSync(bin, { recursive: true });
  const link = path.join(bin, 'corepack');
  // `corepack enable` writes its shims beside the corepack it finds first on PATH
  if (!lstatSafe(link)) symlinkSync(real, link);
  return bin;
}

function lstatSafe(file: string): boolean {
  try {
    lstatSync(file);
    return true;
  } catch {
    return false;
  }
}

/** The first word a command runs (after `cd dir &&`), for the "not installed" line. */
function toolOf(command: string): string {
  const rest = command.replace(/^cd\s+\S+\s+&&\s+/, '');
  return rest.split(/\s+/)[0]!.replace(/^"|"$/g, '');
}

const shown = (dir: string) => (dir === '.' ? 'the root' : `${dir}/`);

/** Why a failed setup failed, in one line. */
function failureLine(records: CommandRecord[], handoff: EnvironmentHandoff, where: string): string {
  const failed = [...records].reverse().find((r) => r.classification || r.matched === false);
  if (!failed) return `setup failed in ${where}: ${handoff.errors[0] ?? handoff.setup_status}`;
  if (failed.exitCode === 127)
    return `\`${toolOf(failed.command)}\` is not installed or not on PATH: \`${failed.command}\` needs it (${handoff.environment_name} in ${where})`;
  if (failed.stage === 'verification')
    return `the check \`${failed.command}\` printed ${JSON.stringify(failed.actual ?? '')}, expected ${JSON.stringify(failed.expected ?? '')} (${where})`;
  if (failed.classification?.kind === 'unreachable-host')
    return `\`${failed.command}\` could not reach \`${failed.classification.hintParams?.host ?? ''}\`: ${failed.classification.hint ?? ''} (${handoff.environment_name} in ${where})`;
  const why = failed.classification
    ? `${failed.classification.class}: ${failed.classification.kind}`
    : 'failed';
  return `\`${failed.command}\` exited ${String(failed.exitCode)} (${why}) in ${where}`;
}

export async function setupCheckout(deps: CheckoutSetupDeps): Promise<CheckoutSetupReport> {
  const where = deps.repoDir;
  const hostEnv: Record<string, string | undefined> = { ...deps.hostEnv };
  const records: CommandRecord[] = [];
  const detection = await detectEnvironment(deps.repoDir, { tracked: deps.tracked });
  if (detection.candidates.length === 0)
    return emptyReport(
      `no project to set up in ${where}: no package.json, pyproject.toml, requirements.txt, environment.yml, pom.xml, build.gradle or go.mod`,
      2,
    );
  const environment = detection.environment_type;
  const broken = detection.reasons
    .map((r) => BROKEN_MANIFEST.exec(r))
    .find((m): m is RegExpExecArray => m !== null);
  if (broken) {
    const [, dir, file, format, why] = broken;
    const at = path.join(where, dir ?? '', file!);
    return emptyReport(`${at} is not valid ${format}${why ? `: ${why}` : ''}`, 1, environment);
  }
  const prepared: CommandReport[] = [];
  const plan = detection.proposals[environment]?.setup_commands ?? detection.setup_commands;
  if (plan.some((c) => /(?:^|&&\s*)corepack\s/.test(c))) {
    const shims = corepackShims(deps.toolCache, hostEnv.PATH ?? '');
    if (shims) hostEnv.PATH = `${shims}:${hostEnv.PATH ?? ''}`;
  }
  if (environment === 'python' && !hostEnv.VIRTUAL_ENV) {
    const venv = await privateVenv(deps, hostEnv);
    prepared.push(venv.report);
    if (venv.failed) return { ...emptyReport(venv.failed, 1, environment), commands: prepared };
  }
  const step = environmentStep({
    config: deps.config,
    llm: deps.llm,
    shell: deps.shell,
    clock: deps.clock,
    logger: deps.logger,
    redactor: deps.redactor,
    hostEnv,
    repoDir: deps.repoDir,
    prompts: deps.prompts,
    detected: detection,
    // the tests run below, and once more on an older Node when they run none
    olderNode: false,
    onRecord: (record) => {
      records.push(record);
      deps.onRecord?.(record);
    },
  });
  const outcome = await step.setup({}, deps.signal);
  const report = reportOf(outcome.handoff, prepared, records);
  if (outcome.handoff.setup_status !== 'success') {
    const problem =
      outcome.handoff.setup_status === 'skipped'
        ? `setup is turned off (environment.setup_enabled: false) for ${where}`
        : failureLine(records, outcome.handoff, where);
    return { ...report, problem, exit_code: 1 };
  }
  const test = outcome.handoff.test_command;
  if (!test) return { ...report, status: 'ready', exit_code: 0 };
  deps.onTests?.(test.command);
  const inside = inEnvironment(test.command, hostEnv, outcome.handoff.runner);
  const result = await deps.shell.run({
    command: inside.command,
    cwd: path.join(deps.repoDir, test.cwd),
    env: inside.env,
    timeoutMs: deps.config.environment.setup_timeout_sec * 1000,
    ...(deps.signal ? { signal: deps.signal } : {}),
  });
  const ran = testsRun(result.output || `${result.stdout}\n${result.stderr}`);
  const tests = {
    command: test.command,
    exit_code: result.exitCode ?? null,
    tests_run: ran ?? null,
  };
  // failing tests are the project's business; a test command that cannot run any is the environment's
  const runs = testsRan(result.exitCode, ran);
  if (runs) return { ...report, tests, status: 'ready', exit_code: 0 };
  const problem = `the test command \`${test.command}\` exited ${String(result.exitCode)} without running a test (${shown(test.cwd)} of ${where})`;
  if (environment !== 'node') return { ...report, tests, problem, exit_code: 1 };
  const older = await testsOnOlderNode({
    shell: deps.shell,
    clock: deps.clock,
    env: inside.env,
    command: inside.command,
    cwd: path.join(deps.repoDir, test.cwd),
    pins: detection.proposals.node?.versions ?? [],
    toolCache: deps.toolCache,
    timeoutMs: deps.config.environment.setup_timeout_sec * 1000,
    ...(deps.signal ? { signal: deps.signal } : {}),
  });
  return olderNodeOutcome(report, tests, problem, older, deps);
}

/** The report after the tests' second try on an older Node (or none, when no pin asks for one). */
function olderNodeOutcome(
  report: CheckoutSetupReport,
  tests: NonNullable<CheckoutSetupReport['tests']>,
  problem: string,
  older: OlderNodeTests | undefined,
  deps: CheckoutSetupDeps,
): CheckoutSetupReport {
  if (!older) return { ...report, tests, problem, exit_code: 1 };
  const { node, current } = older;
  const commands = [...report.commands];
  if (older.install) {
    commands.push({
      stage: 'prepare',
      command: older.install.command,
      exit_code: older.install.exitCode ?? null,
      duration_ms: older.install.durationMs,
      attempts: 1,
    });
    deps.onRecord?.({
      stage: 'setup',
      round: 0,
      command: older.install.command,
      exitCode: older.install.exitCode,
      durationMs: older.install.durationMs,
      outputTail: '',
      attempts: 1,
    });
  }
  const needs = `the project needs Node ${node.major} (${node.because})`;
  if (!older.tests)
    return {
      ...report,
      commands,
      tests,
      problem: `${problem} on Node ${current}; ${needs}, and installing node@${node.major} from the npm registry failed`,
      exit_code: 1,
    };
  const again = {
    ...tests,
    exit_code: older.tests.exitCode ?? null,
    tests_run: older.tests.testsRun ?? null,
    node_version: node.major,
  };
  if (testsRan(older.tests.exitCode, older.tests.testsRun))
    return { ...report, commands, tests: again, status: 'ready', exit_code: 0 };
  return {
    ...report,
    commands,
    tests: again,
    problem: `${problem} on Node ${current}, nor on Node ${node.major} (${node.because})`,
    exit_code: 1,
  };
}

function reportOf(
  handoff: EnvironmentHandoff,
  prepared: CommandReport[],
  records: CommandRecord[],
): CheckoutSetupReport {
  const checks = records.filter((r) => r.stage === 'verification');
  const lastRound = Math.max(0, ...checks.map((c) => c.round));
  const final = checks.filter((c) => c.round === lastRound);
  return {
    status: 'failed',
    environment: handoff.environment_name,
    package_manager: handoff.package_manager ?? null,
    commands: [
      ...prepared,
      ...records.map((r) => ({
        stage: r.stage,
        command: r.command,
        exit_code: r.exitCode ?? null,
        duration_ms: r.durationMs,
        attempts: r.attempts,
      })),
    ],
    verification: {
      passed: handoff.setup_status === 'success',
      expected: final.map((c) => c.expected ?? ''),
      got: final.map((c) => c.actual ?? null),
    },
    tests: null,
    exit_code: 1,
  };
}

/** A `.venv` in the checkout, first on PATH: pip installs there, not into the user's Python. */
async function privateVenv(
  deps: CheckoutSetupDeps,
  hostEnv: Record<string, string | undefined>,
): Promise<{ report: CommandReport; failed?: string }> {
  const command = 'python3 -m venv .venv';
  const venv = path.join(deps.repoDir, '.venv');
  const started = deps.clock.now();
  const result = existsSync(path.join(venv, 'bin', 'python'))
    ? { exitCode: 0 }
    : await deps.shell.run({
        command,
        cwd: deps.repoDir,
        env: sandboxEnv(hostEnv),
        timeoutMs: deps.config.environment.setup_timeout_sec * 1000,
        ...(deps.signal ? { signal: deps.signal } : {}),
      });
  const report: CommandReport = {
    stage: 'prepare',
    command,
    exit_code: result.exitCode ?? null,
    duration_ms: deps.clock.now() - started,
    attempts: 1,
  };
  deps.onRecord?.({
    stage: 'setup',
    round: 0,
    command,
    exitCode: result.exitCode,
    durationMs: report.duration_ms,
    outputTail: '',
    attempts: 1,
  });
  if (result.exitCode !== 0)
    return {
      report,
      failed: `\`${command}\` exited ${String(result.exitCode)} in ${deps.repoDir}: the install goes into a virtualenv in the checkout, which needs python3 with its venv module`,
    };
  hostEnv.VIRTUAL_ENV = venv;
  hostEnv.PATH = `${path.join(venv, 'bin')}:${hostEnv.PATH ?? ''}`;
  return { report };
}
