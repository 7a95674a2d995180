import type { ScriptedLlm } from '../../src/testkit/scripted-llm.ts';
import path from 'node:path';
import { LocalNoteTarget } from '../../src/report/local-note-target.ts';
import { startReporting } from '../../src/run/reporting/index.ts';
import { taskFromText, type TaskSpec } from '../../src/task/task-yaml.ts';
import { runTask } from '../../src/run/orchestrator.ts';
import type { RunDeps } from '../../src/core/run-context.ts';
import type { RunOutcome } from '../../src/core/outcome.ts';
import { scripted, type Step } from '../support/script.ts';
import { makeTempRepo } from '../support/temp-repo.ts';
import { testDeps, type TestDeps } from '../support/run-deps.ts';

export interface Scenario {
  files?: Record<string, string>;
  steps: Step[];
  sets?: string[];
  env?: Record<string, string>;
  test?: string;
  maxLoops?: number;
  overrides?: Partial<RunDeps>;
  task?: (base: TaskSpec) => TaskSpec;
  /** Use the real report and history layers (progress note, Task Note, result.json, JSONL). */
  realReporting?: boolean;
}

export interface ScenarioResult {
  outcome: RunOutcome;
  llm: ScriptedLlm;
  deps: TestDeps;
  dir: string;
  /** What the local note target printed (realReporting only). */
  terminal: string[];
}

const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** Runs the whole pipeline on a real temporary git repository with a scripted model. */
export async function runScenario(scenario: Scenario): Promise<ScenarioResult> {
  const repo = await makeTempRepo(scenario.files ?? {});
  cleanups.push(repo.cleanup);
  const llm = scripted(scenario.steps);
  const deps = await testDeps(llm, {
    sets: scenario.sets ?? [],
    env: scenario.env ?? {},
    overrides: scenario.overrides ?? {},
  });
  let task: TaskSpec = {
    ...taskFromText('Make the requested change', { repo: repo.dir, id: 'task-1' }),
    ...(scenario.test ? { test: { command: scenario.test, cwd: '.' } } : {}),
  };
  if (scenario.task) task = scenario.task(task);
  const terminal: string[] = [];
  const runDeps: RunDeps = scenario.realReporting
    ? { ...deps, ...(await realReporting(deps, task, repo.dir, terminal)) }
    : deps;
  const outcome = await runTask(runDeps, {
    task,
    repoDir: repo.dir,
    maxLoops: scenario.maxLoops ?? 10,
  });
  return { outcome, llm, deps, dir: repo.dir, terminal };
}

async function realReporting(deps: TestDeps, task: TaskSpec, dir: string, terminal: string[]) {
  const stateDir = path.join(dir, deps.config.state.directory);
  const { reporter, history } = await startReporting({
    repoDir: dir,
    config: deps.config,
    taskId: task.id,
    title: task.title,
    runId: 'run-1',
    target: new LocalNoteTarget({ stateDir, write: (text) => terminal.push(text) }),
    redactor: deps.redactor,
    logger: deps.logger,
    clock: deps.clock,
    artifactUrl: (file) => file,
  });
  return { reporter, history };
}

/** The user message of the n-th recorded call. */
export function userMessage(llm: ScriptedLlm, index: number): string {
  const message = llm.calls[index]!.messages.find((m) => m.role === 'user');
  return message?.content ?? '';
}
