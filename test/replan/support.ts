import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { ReplanDecisionEntry } from '../../src/history/entries.ts';
import { PlanningHistoryStore } from '../../src/history/planning-history.ts';
import type { NoteTarget } from '../../src/core/note-target.ts';
import type { AnswerSource, ThreadReply } from '../../src/phases/replan/answers.ts';
import { replanStateFile } from '../../src/phases/replan/state.ts';
import type { RunDeps } from '../../src/core/run-context.ts';
import { runTask } from '../../src/run/orchestrator.ts';
import type { RunOutcome } from '../../src/core/outcome.ts';
import { startReporting, type Reporting } from '../../src/run/reporting/index.ts';
import { taskFromText } from '../../src/task/task-yaml.ts';
import type { ReplanPoint } from '../../src/core/hooks.ts';
import type { ScriptedLlm } from '../../src/testkit/scripted-llm.ts';
import { json, scripted, type Step } from '../support/script.ts';
import { RecordingTarget } from '../support/recording-target.ts';
import { testDeps, type TestDeps } from '../support/run-deps.ts';
import { makeTempRepo } from '../support/temp-repo.ts';

/** A replan decision reply; unspecified fields take "no replan" defaults. */
export function decision(fields: Record<string, unknown> = {}) {
  return {
    replan_decision: {
      replan_needed: false,
      confidence: 0.9,
      reasoning: 'The plan can go on.',
      replan_type: 'none',
      issues_found: [],
      recommended_actions: [],
      clarification_needed: false,
      clarification_questions: [],
      ...fields,
    },
  };
}

/** A replan decision step for a checkpoint. */
export function judge(point: ReplanPoint, fields: Record<string, unknown> = {}): Step {
  return json(`replan.${point}`, decision(fields));
}

/** "No replan" at the three planning checkpoints. */
export function planningOk(): Step[] {
  return [judge('goal_understanding'), judge('task_decomposition'), judge('action_sequence')];
}

/** Answers that appear once the clock has reached `at` (or at once without `at`). */
export class ScriptedAnswers implements AnswerSource {
  readonly polls: string[] = [];
  readonly replies_: Array<ThreadReply & { at: number; allowed: boolean }> = [];
  constructor(private readonly now: () => number) {}

  add(body: string, options: { at?: number; username?: string; allowed?: boolean } = {}): void {
    this.replies_.push({
      id: String(100 + this.replies_.length),
      author: { id: 7, username: options.username ?? 'dana' },
      body,
      createdAt: new Date(options.at ?? 0).toISOString(),
      at: options.at ?? 0,
      allowed: options.allowed ?? true,
    });
  }

  async replies(noteId: string): Promise<ThreadReply[]> {
    this.polls.push(noteId);
    return this.replies_.filter((r) => r.at <= this.now());
  }

  async mayAnswer(reply: ThreadReply): Promise<boolean> {
    return this.replies_.find((r) => r.id === reply.id)?.allowed ?? false;
  }
}

export interface ReplanScenario {
  steps: Step[];
  sets?: string[];
  /** Reuse a repository (a resumed run); a fresh one otherwise. */
  dir?: string;
  target?: NoteTarget;
  answers?: (deps: TestDeps) => AnswerSource;
  deps?: TestDeps;
  issueId?: string;
}

export interface ReplanRun {
  outcome: RunOutcome;
  llm: ScriptedLlm;
  deps: TestDeps;
  dir: string;
  target: NoteTarget;
  reporting: Reporting;
  decisions(): Promise<ReplanDecisionEntry[]>;
  stateFile(): Promise<Record<string, unknown>>;
}

const NO_INTERVAL = ['planning.reflection.trigger_interval=0'];

/**
 * Runs the whole pipeline on a real temporary git repository with a scripted
 * model, the real report and history layers, and the replan hook that
 * `startReporting` builds (the ReplanManager).
 */
export async function runWithReplanning(
  scenario: ReplanScenario,
  cleanups: Array<() => Promise<void>>,
): Promise<ReplanRun> {
  let dir = scenario.dir;
  if (!dir) {
    const repo = await makeTempRepo({ 'README.md': '# sample\n' });
    cleanups.push(repo.cleanup);
    dir = repo.dir;
  }
  const llm = scripted(scenario.steps);
  const deps =
    scenario.deps ?? (await testDeps(llm, { sets: [...NO_INTERVAL, ...(scenario.sets ?? [])] }));
  deps.llm = llm;
  const task = taskFromText('Make the requested change', { repo: dir, id: 'task-1' });
  const target = scenario.target ?? new RecordingTarget();
  const reporting = await startReporting({
    repoDir: dir,
    config: deps.config,
    taskId: task.id,
    title: task.title,
    runId: `run-${Date.now()}`,
    target,
    redactor: deps.redactor,
    logger: deps.logger,
    clock: deps.clock,
    ...(scenario.issueId ? { issueId: scenario.issueId } : {}),
    ...(scenario.answers ? { answers: scenario.answers(deps) } : {}),
  });
  const runDeps: RunDeps = {
    ...deps,
    reporter: reporting.reporter,
    history: reporting.history,
    hooks: { replan: reporting.replan },
  };
  const outcome = await runTask(runDeps, { task, repoDir: dir, maxLoops: 10 });
  const stateDir = reporting.paths.stateDir;
  return {
    outcome,
    llm,
    deps,
    dir,
    target,
    reporting,
    decisions: () =>
      new PlanningHistoryStore({
        directory: reporting.paths.historyDir,
        taskId: task.id,
        logger: deps.logger,
      }).getReplanDecisions(),
    stateFile: async () =>
      JSON.parse(
        await readFile(replanStateFile(stateDir, scenario.issueId ?? task.id), 'utf8'),
      ) as Record<string, unknown>,
  };
}

/** Purposes of the model calls, in order. */
export function purposes(llm: ScriptedLlm): string[] {
  return llm.calls.map((c) => c.purpose);
}

export function userText(llm: ScriptedLlm, index: number): string {
  return llm.calls[index]?.messages.find((m) => m.role === 'user')?.content ?? '';
}

export function notesOf(target: RecordingTarget, heading: string): string[] {
  return [...target.notes.values()].filter((body) => body.includes(heading));
}

export const stateDirOf = (dir: string) => path.join(dir, '.mr-agent');
