import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Metadata, type PhaseMetadata } from '../../../src/history/metadata.ts';
import type { JsonReply, JsonRequest, LlmPort, LlmPurpose } from '../../../src/core/llm-port.ts';
import { createMemoryLogger } from '../../../src/log/logger.ts';
import { Redactor } from '../../../src/log/redact.ts';
import { LocalNoteTarget } from '../../../src/report/local-note-target.ts';
import { runTask } from '../../../src/run/orchestrator.ts';
import type { RunOutcome } from '../../../src/core/outcome.ts';
import { startReporting } from '../../../src/run/reporting/index.ts';
import type { ProgressReporter } from '../../../src/run/reporting/reporter.ts';
import { taskFromText } from '../../../src/task/task-yaml.ts';
import { ScriptedLlm, type ScriptedStep } from '../../../src/testkit/scripted-llm.ts';
import { assessment, planWith, action } from '../../support/plans.ts';
import { testDeps } from '../../support/run-deps.ts';
import { makeTempRepo } from '../../support/temp-repo.ts';

export const PASS = '{"result": "PASS", "feedback": ""}';
export const FAIL = (feedback: string) => JSON.stringify({ result: 'FAIL', feedback });

/** One file-writing action: the plan, its tool call and its closing message. */
export const writeHello = {
  plan: planWith([action('task_1', 'Write hello.txt')], ['hello.txt says hello']),
  steps: (content = 'hello\n'): ScriptedStep[] => [
    {
      purpose: 'execution',
      toolCalls: [{ name: 'write_file', arguments: { path: 'hello.txt', content } }],
    },
    { purpose: 'execution', content: 'DONE: wrote hello.txt' },
  ],
};

export const plan = (value = writeHello.plan): ScriptedStep => ({
  purpose: 'planning',
  json: value,
});
export const review = (
  phase: 'planning' | 'execution',
  content: string,
  contains?: string | string[],
): ScriptedStep => ({
  purpose: `review.${phase}`,
  role: 'review',
  content,
  ...(contains ? { contains } : {}),
});
export const complete: ScriptedStep = { purpose: 'completion', json: assessment(true) };

export interface LiveRun {
  dir: string;
  reporter: ProgressReporter;
  metadata(): Promise<Metadata>;
}

export interface ReviewScenario {
  steps: ScriptedStep[];
  sets?: string[];
  files?: Record<string, string>;
  /** Runs before each model call of `purpose` (e.g. to read `metadata.json` mid-run). */
  before?: { purpose: LlmPurpose; call: (live: LiveRun, n: number) => Promise<void> };
}

export interface ReviewRun extends LiveRun {
  outcome: RunOutcome;
  llm: ScriptedLlm;
  /** Log messages, in order. */
  messages: string[];
  log: Array<Record<string, unknown>>;
  /** The progress note as last written. */
  note(): Promise<string>;
  taskNote(): Promise<string>;
  cleanup(): Promise<void>;
}

const NO_INTERVAL = 'planning.reflection.trigger_interval=0';

/**
 * The whole run on a real temporary git repository with the real review
 * phase, the scripted model (`ScriptedLlm`, in order) and the real report
 * layer (progress note file, metadata.json, Task Note).
 */
export async function runReviewScenario(scenario: ReviewScenario): Promise<ReviewRun> {
  const repo = await makeTempRepo(scenario.files ?? { 'README.md': '# demo\n' });
  const scripted = new ScriptedLlm(scenario.steps, { ordered: true });
  const counts = new Map<string, number>();
  const ref: { live?: LiveRun } = {};
  const before = async (purpose: LlmPurpose) => {
    if (scenario.before?.purpose !== purpose || !ref.live) return;
    const n = (counts.get(purpose) ?? 0) + 1;
    counts.set(purpose, n);
    await scenario.before.call(ref.live, n);
  };
  const llm: LlmPort = {
    chat: async (request) => (await before(request.purpose), scripted.chat(request)),
    json: async <T>(request: JsonRequest<T>): Promise<JsonReply<T>> => {
      await before(request.purpose);
      return scripted.json(request);
    },
  };
  const redactor = new Redactor();
  const { logger, lines } = createMemoryLogger({ level: 'debug', format: 'json', redactor });
  const deps = await testDeps(llm, {
    sets: [NO_INTERVAL, ...(scenario.sets ?? [])],
    realReview: true,
    overrides: { logger, redactor },
  });
  const task = taskFromText('Write hello.txt with the word hello', {
    repo: repo.dir,
    id: 'task-1',
  });
  const stateDir = path.join(repo.dir, deps.config.state.directory);
  const reporting = await startReporting({
    repoDir: repo.dir,
    config: deps.config,
    taskId: task.id,
    title: task.title,
    runId: 'run-1',
    target: new LocalNoteTarget({ stateDir, write: () => undefined }),
    redactor: deps.redactor,
    logger,
    clock: deps.clock,
    artifactUrl: (file) => file,
  });
  const reporter = reporting.reporter as ProgressReporter;
  const metadata = async () =>
    Metadata.parse(JSON.parse(await readFile(reporting.paths.metadata, 'utf8')));
  const live: LiveRun = { dir: repo.dir, reporter, metadata };
  ref.live = live;
  const outcome = await runTask(
    { ...deps, reporter, history: reporting.history },
    { task, repoDir: repo.dir, maxLoops: 3 },
  );
  const log = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  return {
    ...live,
    outcome,
    llm: scripted,
    messages: log.map((entry) => String(entry['message'])),
    log,
    note: () => readFile(path.join(stateDir, 'notes', 'progress-1.md'), 'utf8'),
    taskNote: () => readFile(path.join(stateDir, 'task-task-1.md'), 'utf8'),
    cleanup: repo.cleanup,
  };
}

/** The last user message of each call of `purpose`. */
export function promptsOf(run: ReviewRun, purpose: LlmPurpose): string[] {
  return run.llm.calls
    .filter((c) => c.purpose === purpose)
    .map((c) => c.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '');
}

const runs: ReviewRun[] = [];
afterEach(async () => {
  while (runs.length) await runs.pop()!.cleanup();
});

/** `runReviewScenario`, cleaned up after the test. */
export async function scenario(...args: Parameters<typeof runReviewScenario>): Promise<ReviewRun> {
  const run = await runReviewScenario(...args);
  runs.push(run);
  return run;
}

/** A run whose planning review FAILs once with `reply`, then passes; the rest succeeds. */
export function failOnceThenPass(reply: string) {
  return [
    plan(),
    review('planning', reply),
    plan(),
    review('planning', PASS),
    ...writeHello.steps(),
    review('execution', PASS),
    complete,
  ];
}

export function phaseOf(run: ReviewRun, phase: string): Promise<PhaseMetadata> {
  return run.metadata().then((m) => m.phases[phase]!);
}
