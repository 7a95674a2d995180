import path from 'node:path';
import { runAgentRunnerTask } from '../../run/agent-runner.ts';
import { composeAgentRunner } from '../../run/compose-agent-runner.ts';
import { refusedUserSettingsLine } from '../../config/describe.ts';
import type { Config } from '../../config/options.ts';
import type { ResolvedConfig } from '../../config/resolve.ts';
import { LocalNoteTarget, shownPath } from '../../report/local-note-target.ts';
import { taskNotePath } from '../../report/task-note.ts';
import { runTask } from '../../run/orchestrator.ts';
import { composeRun } from '../../run/compose.ts';
import type { RunLifecycle } from '../../run/lifecycle.ts';
import { localRunServices, type LocalRunServices, type RunFactories } from './run-services.ts';
import type { TaskSpec } from '../../task/task-yaml.ts';
import { useColor, type CliIo } from '../io.ts';
import { readTask, type RunOptions } from './run.ts';
import {
  checkFolders,
  configFor,
  maxLoopsFor,
  printOutcome,
  printWorkerOutcome,
  resolveRepo,
} from './run-support.ts';

export type { RunFactories } from './run-services.ts';

interface Session extends LocalRunServices {
  task: TaskSpec;
  repoDir: string;
  resolved: ResolvedConfig;
  config: Config;
}

async function openSession(io: CliIo, options: RunOptions, factories: RunFactories) {
  const task = await readTask(io, options);
  const repoDir = await resolveRepo(io, options, task);
  const resolved = await configFor(io, options, task, repoDir);
  const refused = refusedUserSettingsLine(resolved);
  if (refused) io.stderr.write(`mr-agent: ${refused}\n`);
  const config = resolved.config;
  await checkFolders(io, config, repoDir);
  const session: Session = {
    task,
    repoDir,
    resolved,
    config,
    ...localRunServices(io, config, factories),
  };
  return session;
}

/** AgentRunner mode: an external coding CLI as the worker, composed and run in src/run/. */
async function runWithWorker(io: CliIo, s: Session, signal: AbortSignal, json: boolean) {
  const deps = composeAgentRunner({
    config: s.config,
    llm: s.llm,
    shell: s.shell,
    clock: s.clock,
    logger: s.logger,
    redactor: s.redactor,
    hostEnv: io.env,
    cwd: io.cwd,
    signal,
  });
  const result = await runAgentRunnerTask({ ...s.task, repo: s.repoDir }, deps);
  printWorkerOutcome(io, s.redactor, result, json);
  return result.exitCode;
}

/** The local notes: the terminal (stderr with `--json`) and `.mr-agent/notes/`. */
function localNotes(io: CliIo, json: boolean, stateDir: string) {
  return new LocalNoteTarget({
    stateDir,
    write: (text) => (json ? io.stderr : io.stdout).write(text),
    color: useColor(io),
  });
}

/** The builtin agent: the run pipeline, composed like every other entry's (src/run/compose.ts). */
async function runBuiltin(
  io: CliIo,
  s: Session,
  options: RunOptions,
  factories: RunFactories,
  lifecycle: RunLifecycle,
): Promise<number> {
  const json = Boolean(options.json);
  const stateDir = path.resolve(s.repoDir, s.config.state.directory);
  const { deps, reporting } = await composeRun({
    config: s.config,
    task: s.task,
    repoDir: s.repoDir,
    runId: s.traceId,
    clock: s.clock,
    shell: s.shell,
    logger: s.logger,
    redactor: s.redactor,
    hostEnv: io.env,
    llm: s.llm,
    notes: localNotes(io, json, stateDir),
    signal: lifecycle.signal,
    log: (text) => (json ? io.stderr : io.stdout).write(text),
    artifactUrl: (file) => file,
    createEnvironment: factories.createEnvironment,
  });
  const settled = await lifecycle.settle(reporting, () =>
    runTask(deps, { task: s.task, repoDir: s.repoDir, maxLoops: maxLoopsFor(s.resolved, s.task) }),
  );
  if (settled.kind === 'abandoned') return settled.exitCode;
  const outcome = settled.value;
  printOutcome(io, outcome, json, {
    taskNote: shownPath(io.cwd, taskNotePath(stateDir, s.task.id)),
    result: shownPath(io.cwd, reporting.paths.result),
  });
  if (outcome.finalStateNotWritten) io.stderr.write(`mr-agent: ${outcome.finalStateNotWritten}\n`);
  return outcome.exitCode;
}

/**
 * `mr-agent run`: one task in a local checkout, notes on the terminal and in
 * `.mr-agent/`. A Task YAML whose `runner.worker.kind` names a coding
 * CLI runs in AgentRunner mode (docs/agent-runner.md); otherwise the run pipeline, which
 * hands its actions to the CLI of the `runner.worker.kind` option when set
 * (as in CI). Signals and the grace period: src/run/lifecycle.ts.
 */
export async function runLocal(
  io: CliIo,
  options: RunOptions,
  factories: RunFactories,
): Promise<number> {
  const s = await openSession(io, options, factories);
  const { lifecycle } = s;
  let code = 1;
  try {
    code =
      s.task.worker.kind !== 'builtin'
        ? await runWithWorker(io, s, lifecycle.signal, Boolean(options.json))
        : await runBuiltin(io, s, options, factories, lifecycle);
  } finally {
    code = lifecycle.close(code);
  }
  return code;
}
