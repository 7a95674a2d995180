import path from 'node:path';
import { runAgentRunnerTask } from '../../agent-runner/runner.ts';
import { settingsFromConfig } from '../../agent-runner/settings.ts';
import type { Config } from '../../config/options.ts';
import type { ResolvedConfig } from '../../config/resolve.ts';
import type { LlmPort } from '../../core/llm-port.ts';
import { createLogger, newTraceId, type Logger } from '../../log/logger.ts';
import type { Redactor } from '../../log/redact.ts';
import { LocalNoteTarget, shownPath } from '../../report/local-note-target.ts';
import { taskNotePath } from '../../report/task-note.ts';
import { exitCodeForSignal } from '../../report/termination.ts';
import { systemClock, type Clock } from '../../core/clock.ts';
import { runTask } from '../../run/orchestrator.ts';
import type { RunOutcome } from '../../core/outcome.ts';
import { environmentStep, type EnvironmentStepDeps } from '../../phases/environment/step.ts';
import type { EnvironmentStep } from '../../core/ports.ts';
import { promptLibrary } from '../../core/prompts.ts';
import { startReporting, type Reporting } from '../../run/reporting/index.ts';
import { ExecaShell } from '../../shell/execa-shell.ts';
import type { Shell } from '../../core/shell-port.ts';
import type { TaskSpec } from '../../task/task-yaml.ts';
import { useColor, type CliIo } from '../io.ts';
import { readTask, type RunOptions } from './run.ts';
import {
  checkFolders,
  configFor,
  maxLoopsFor,
  printOutcome,
  printWorkerOutcome,
  redactorFor,
  resolveRepo,
  streamOf,
  watchSignals,
  withGrace,
} from './run-support.ts';

/** What `mr-agent run` builds from the configuration; replaceable in tests. */
export interface RunFactories {
  createLlm(config: Config, env: CliIo['env'], logger: Logger, clock: Clock): LlmPort;
  /** Default: the environment phase of src/phases/environment/. */
  createEnvironment?(deps: EnvironmentStepDeps): EnvironmentStep | undefined;
  shell?: Shell;
  clock?: Clock;
  /** After a termination signal, the longest wait for the final state (default 8 s). */
  graceMs?: number;
}

interface Session {
  task: TaskSpec;
  repoDir: string;
  resolved: ResolvedConfig;
  config: Config;
  clock: Clock;
  redactor: Redactor;
  traceId: string;
  logger: Logger;
  llm: LlmPort;
  shell: Shell;
  controller: AbortController;
}

async function openSession(io: CliIo, options: RunOptions, factories: RunFactories) {
  const task = await readTask(io, options);
  const repoDir = await resolveRepo(io, options, task);
  const resolved = await configFor(io, options, task, repoDir);
  const config = resolved.config;
  await checkFolders(io, config, repoDir);
  const clock = factories.clock ?? systemClock;
  const redactor = redactorFor(io, config);
  const traceId = newTraceId();
  const format =
    config.log.format === 'auto' ? (io.env.CI === 'true' ? 'json' : 'text') : config.log.format;
  const logger = createLogger({
    level: config.log.level,
    format,
    traceId,
    redactor,
    stream: streamOf(io.stderr),
    color: useColor(io),
  });
  const session: Session = {
    task,
    repoDir,
    resolved,
    config,
    clock,
    redactor,
    traceId,
    logger,
    llm: factories.createLlm(config, io.env, logger, clock),
    shell: factories.shell ?? new ExecaShell(),
    controller: new AbortController(),
  };
  return session;
}

/** AgentRunner mode (seed 002): an external coding CLI as the worker (src/agent-runner/). */
async function runWithWorker(
  io: CliIo,
  s: Session,
  kind: TaskSpec['worker']['kind'],
  json: boolean,
) {
  const result = await runAgentRunnerTask(
    { ...s.task, repo: s.repoDir, worker: { ...s.task.worker, kind } },
    {
      llm: s.llm,
      shell: s.shell,
      clock: s.clock,
      logger: s.logger,
      redactor: s.redactor,
      hostEnv: io.env,
      cwd: io.cwd,
      settings: settingsFromConfig(s.config),
      signal: s.controller.signal,
    },
  );
  printWorkerOutcome(io, s.redactor, result, json);
  return result.exitCode;
}

/** The local report layer: notes on the terminal (stderr with `--json`) and in `.mr-agent/`. */
function startLocalReporting(io: CliIo, s: Session, json: boolean, stateDir: string) {
  return startReporting({
    repoDir: s.repoDir,
    config: s.config,
    taskId: s.task.id,
    title: s.task.title,
    runId: s.traceId,
    target: new LocalNoteTarget({
      stateDir,
      write: (text) => (json ? io.stderr : io.stdout).write(text),
      color: useColor(io),
    }),
    redactor: s.redactor,
    logger: s.logger,
    clock: s.clock,
    artifactUrl: (file) => file,
  });
}

/** The run is stuck after a signal (e.g. a call that ignores the abort): write the note's end ourselves. */
async function giveUpAfterGrace(io: CliIo, s: Session, reporting: Reporting): Promise<undefined> {
  s.logger.error('final state not written within the grace period');
  await Promise.race([
    reporting.publisher.finish({
      state: 'cancelled',
      summary: 'The run was cancelled and did not stop within its grace period.',
    }),
    systemClock.sleep(2000),
  ]);
  io.exit?.(exitCodeForSignal('SIGTERM'));
  return undefined;
}

/** The builtin agent: the run pipeline with the local report layer. */
async function runBuiltin(
  io: CliIo,
  s: Session,
  options: RunOptions,
  factories: RunFactories,
  signalled: Promise<void>,
): Promise<RunOutcome | undefined> {
  const json = Boolean(options.json);
  const stateDir = path.resolve(s.repoDir, s.config.state.directory);
  const reporting = await startLocalReporting(io, s, json, stateDir);
  const environment = (factories.createEnvironment ?? environmentStep)({
    config: s.config,
    llm: s.llm,
    shell: s.shell,
    clock: s.clock,
    logger: s.logger,
    redactor: s.redactor,
    hostEnv: io.env,
    repoDir: s.repoDir,
    marker: { task: s.task.id },
    language: reporting.language,
  });
  const run = runTask(
    {
      config: s.config,
      llm: s.llm,
      shell: s.shell,
      clock: s.clock,
      logger: s.logger,
      redactor: s.redactor,
      hostEnv: io.env,
      prompts: promptLibrary(s.config.prompts.directory, reporting.language),
      reporter: reporting.reporter,
      history: reporting.history,
      // the ReplanManager when planning.replanning.enabled, else a hook that always continues
      hooks: { replan: reporting.replan },
      ...(environment ? { environment } : {}),
      signal: s.controller.signal,
    },
    { task: s.task, repoDir: s.repoDir, maxLoops: maxLoopsFor(s.resolved, s.task) },
  );
  const outcome = await withGrace(run, signalled, factories.graceMs ?? 8000);
  if (!outcome) return giveUpAfterGrace(io, s, reporting);
  printOutcome(io, outcome, json, {
    taskNote: shownPath(io.cwd, taskNotePath(stateDir, s.task.id)),
    result: shownPath(io.cwd, reporting.paths.result),
  });
  return outcome;
}

/** `mr-agent run`: one task in a local checkout, notes on the terminal and in `.mr-agent/` (A5). */
export async function runLocal(
  io: CliIo,
  options: RunOptions,
  factories: RunFactories,
): Promise<number> {
  const s = await openSession(io, options, factories);
  const signals = watchSignals(io, s.controller);
  try {
    const kind =
      s.task.worker.kind !== 'builtin' ? s.task.worker.kind : s.config.runner.worker.kind;
    const code =
      kind !== 'builtin'
        ? await runWithWorker(io, s, kind, Boolean(options.json))
        : (await runBuiltin(io, s, options, factories, signals.signalled))?.exitCode;
    if (signals.seen.signal) return exitCodeForSignal(signals.seen.signal);
    return code ?? 1;
  } finally {
    signals.remove();
  }
}
