import { stat } from 'node:fs/promises';
import path from 'node:path';
import { Writable } from 'node:stream';
import { runAgentRunnerTask } from '../../agent-runner/runner.ts';
import { settingsFromConfig } from '../../agent-runner/settings.ts';
import { loadConfig } from '../../config/load.ts';
import type { Config } from '../../config/options.ts';
import type { ResolvedConfig } from '../../config/resolve.ts';
import { CancelledError, UsageError } from '../../errors/errors.ts';
import type { LlmPort } from '../../llm/port.ts';
import { createLogger, newTraceId, type Logger } from '../../log/logger.ts';
import { Redactor } from '../../log/redact.ts';
import { LocalNoteTarget } from '../../report/local-note-target.ts';
import { taskNotePath } from '../../report/task-note.ts';
import { exitCodeForSignal, type TerminationSignal } from '../../report/termination.ts';
import { systemClock, type Clock } from '../../run/clock.ts';
import { runTask } from '../../run/orchestrator.ts';
import type { RunOutcome } from '../../run/outcome.ts';
import { environmentStep, type EnvironmentStepDeps } from '../../run/environment-step.ts';
import type { EnvironmentStep } from '../../run/ports.ts';
import { promptLibrary } from '../../run/prompts.ts';
import { startReporting } from '../../run/reporting/index.ts';
import { ExecaShell } from '../../shell/execa-shell.ts';
import type { Shell } from '../../shell/port.ts';
import type { TaskSpec } from '../../task/task-yaml.ts';
import { useColor, type CliIo } from '../io.ts';
import { readTask, type RunOptions } from './run.ts';

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

async function resolveRepo(io: CliIo, options: RunOptions, task: TaskSpec): Promise<string> {
  const dir = path.resolve(io.cwd, options.repo ?? task.repo);
  const isDir = await stat(dir).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (!isDir)
    throw new UsageError('the repository folder does not exist', {
      where: options.repo ? `--repo ${options.repo}` : `task.repo (${task.repo})`,
    });
  return dir;
}

/** Task YAML `runner.meta.model` applies unless a model was configured elsewhere. */
async function configFor(io: CliIo, options: RunOptions, task: TaskSpec, repoDir: string) {
  const input = { env: io.env, repoDir, sets: options.set ?? [] };
  const first = await loadConfig(input);
  if (!task.meta.model || first.origins['llm.model']?.kind !== 'default') return first;
  return loadConfig({ ...input, flags: { 'llm.model': task.meta.model } });
}

function maxLoopsFor(resolved: ResolvedConfig, task: TaskSpec): number {
  return resolved.origins['runner.max_loops']?.kind === 'default'
    ? task.maxLoops
    : resolved.config.runner.max_loops;
}

function streamOf(out: CliIo['stderr']): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      out.write(chunk.toString('utf8'));
      done();
    },
  });
}

function redactorFor(io: CliIo, config: Config): Redactor {
  const redactor = new Redactor();
  redactor.addFromEnv(io.env, [...config.secrets.variables, config.llm.api_key_variable]);
  redactor.add(config.gitlab.token);
  return redactor;
}

/** Aborts the run on SIGTERM/SIGINT; remembers which signal came (M6). */
function watchSignals(io: CliIo, controller: AbortController) {
  const seen: { signal?: TerminationSignal } = {};
  let onSignal: (() => void) | undefined;
  const signalled = new Promise<void>((resolve) => (onSignal = resolve));
  const remove = io.onSignal?.((signal) => {
    seen.signal = (
      ['SIGTERM', 'SIGINT', 'SIGHUP'].includes(signal) ? signal : 'SIGTERM'
    ) as TerminationSignal;
    controller.abort(new CancelledError(`received ${signal}`));
    onSignal?.();
  });
  return { seen, signalled, remove: remove ?? (() => undefined) };
}

function printOutcome(
  io: CliIo,
  outcome: RunOutcome,
  json: boolean,
  files: { taskNote: string; result: string },
) {
  if (json) {
    io.stdout.write(
      `${JSON.stringify({ ok: outcome.state === 'COMPLETE', state: outcome.state, reason: outcome.reason, summary: outcome.summary, exit_code: outcome.exitCode, task_note: files.taskNote, result: files.result })}\n`,
    );
    return;
  }
  io.stdout.write(
    `\nmr-agent: ${outcome.state} (${outcome.reason}) — ${outcome.summary}\nTask Note: ${files.taskNote}\n`,
  );
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
async function runWithWorker(io: CliIo, s: Session, kind: TaskSpec['worker']['kind']) {
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
  return result.exitCode;
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
  const reporting = await startReporting({
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
      prompts: promptLibrary(s.config.prompts.directory),
      reporter: reporting.reporter,
      history: reporting.history,
      ...(environment ? { environment } : {}),
      signal: s.controller.signal,
    },
    { task: s.task, repoDir: s.repoDir, maxLoops: maxLoopsFor(s.resolved, s.task) },
  );
  // a wall-clock safety net, whatever clock the run uses
  const grace = signalled.then(() => systemClock.sleep(factories.graceMs ?? 8000));
  const outcome = await Promise.race([run, grace.then(() => undefined)]);
  if (!outcome) {
    s.logger.error('final state not written within the grace period');
    io.exit?.(exitCodeForSignal('SIGTERM'));
    return undefined;
  }
  printOutcome(io, outcome, json, {
    taskNote: path.relative(io.cwd, taskNotePath(stateDir, s.task.id)),
    result: path.relative(io.cwd, reporting.paths.result),
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
        ? await runWithWorker(io, s, kind)
        : (await runBuiltin(io, s, options, factories, signals.signalled))?.exitCode;
    if (signals.seen.signal) return exitCodeForSignal(signals.seen.signal);
    return code ?? 1;
  } finally {
    signals.remove();
  }
}
