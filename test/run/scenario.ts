import { taskFromText, type TaskSpec } from '../../src/task/task-yaml.ts';
import { runTask } from '../../src/run/orchestrator.ts';
import type { RunDeps } from '../../src/run/context.ts';
import type { RunOutcome } from '../../src/run/outcome.ts';
import { FakeLlm, type Step } from '../support/fake-llm.ts';
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
}

export interface ScenarioResult {
  outcome: RunOutcome;
  llm: FakeLlm;
  deps: TestDeps;
  dir: string;
}

const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** Runs the whole pipeline on a real temporary git repository with a scripted model. */
export async function runScenario(scenario: Scenario): Promise<ScenarioResult> {
  const repo = await makeTempRepo(scenario.files ?? {});
  cleanups.push(repo.cleanup);
  const llm = new FakeLlm(scenario.steps);
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
  const outcome = await runTask(deps, {
    task,
    repoDir: repo.dir,
    maxLoops: scenario.maxLoops ?? 10,
  });
  return { outcome, llm, deps, dir: repo.dir };
}

/** The user message of the n-th recorded call. */
export function userMessage(llm: FakeLlm, index: number): string {
  const message = llm.calls[index]!.messages.find((m) => m.role === 'user');
  return message?.content ?? '';
}
