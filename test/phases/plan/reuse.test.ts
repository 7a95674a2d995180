import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import type { ReplanCheckpoint, ReplanDirective } from '../../../src/core/hooks.ts';
import type { EarlierPlan } from '../../../src/core/ports.ts';
import { HistoryEntry } from '../../../src/history/entries.ts';
import { reuseDecision } from '../../../src/phases/plan/reuse.ts';
import { describeEntry } from '../../../src/run/reporting/history.ts';
import { resolveConfig, isResolved } from '../../../src/config/resolve.ts';
import { action, assessment, planWith, reflection } from '../../support/plans.ts';
import { exec, json, toolCall } from '../../support/script.ts';
import { runScenario, userMessage } from '../../run/scenario.ts';

/** The scenario clock starts here (test/support/run-deps.ts). */
const START = Date.parse('2023-11-14T22:13:20Z');
const at = (minutesBefore: number) => new Date(START - minutesBefore * 60_000).toISOString();

const firstPlan = planWith(
  [action('task_1', 'Write a.txt'), action('task_2', 'Write b.txt')],
  ['a.txt and b.txt exist'],
);
const revised = {
  execution_order: ['task_1', 'task_2'],
  actions: [action('task_1', 'Write a.txt'), action('task_2', 'Write b.txt with the date')],
};

/** An earlier, failed run of task-1: plan, one action, a reflection and a revision, a failed action. */
function earlierRun(extra: object[] = []): string {
  const base = { task_id: 'task-1', run_id: 'run-0' };
  const lines = [
    { type: 'plan', timestamp: at(60), ...base, plan: firstPlan },
    {
      type: 'execution',
      timestamp: at(59),
      ...base,
      action_id: 'A1',
      status: 'success',
      summary: 'task_1: wrote a.txt',
    },
    {
      type: 'execution',
      timestamp: at(58),
      ...base,
      action_id: 'A2',
      status: 'error',
      summary: 'task_2: no date',
    },
    {
      type: 'reflection',
      timestamp: at(57),
      ...base,
      evaluation: reflection('failure', { reason: 'b.txt needs the date', actions: [] }),
    },
    {
      type: 'revision',
      timestamp: at(57),
      ...base,
      revision: 1,
      reason: 'b.txt needs the date',
      changes: [],
      updated_plan: revised,
    },
    ...extra,
  ];
  return lines.map((l) => `${JSON.stringify(l)}\n`).join('');
}

const HISTORY = '.mr-agent/planning_history/task-1.jsonl';
const write = (file: string, content: string) =>
  exec.tools(toolCall('write_file', { path: file, content }));

async function historyLines(dir: string): Promise<Array<Record<string, unknown>>> {
  const text = await readFile(path.join(dir, HISTORY), 'utf8');
  return text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('seed 001 §7.3 reusing an existing plan', function () {
  this.timeout(30_000);

  it('seed 001 §7.3 a task whose history holds a plan reuses it: no planning call, revisions and reflections carry over, the history records the reuse', async () => {
    const { outcome, llm, dir } = await runScenario({
      realReporting: true,
      sets: ['planning.reflection.trigger_interval=0'],
      files: { [HISTORY]: earlierRun() },
      steps: [
        write('a.txt', 'a\n'),
        exec.say('DONE: wrote a.txt'),
        write('b.txt', 'no date yet\n'),
        exec.say('FAILED: the date is unknown'),
        json('reflection', reflection('partial')),
        json('completion', assessment(true)),
      ],
    });
    llm.assertAllUsed();
    expect(outcome.state, outcome.summary).to.equal('COMPLETE');
    expect(llm.calls.map((c) => c.purpose)).to.not.include('planning');
    // the revised plan is the one carried out, from the start (a fresh checkout)
    expect(outcome.actions.map((a) => a.action.purpose)).to.deep.equal([
      'Write a.txt',
      'Write b.txt with the date',
    ]);
    expect(outcome.revisions).to.equal(1);
    const reflectionPrompt = userMessage(
      llm,
      llm.calls.findIndex((c) => c.purpose === 'reflection'),
    );
    expect(reflectionPrompt)
      .to.contain('## Earlier attempts with this plan (task-1)')
      .and.contain('revision #1: b.txt needs the date')
      .and.contain('reflection (failure): The action did not work.');

    const reusedEntry = (await historyLines(dir)).find((l) => l.reused_from !== undefined);
    expect(reusedEntry).to.deep.include({ type: 'plan', task_id: 'task-1', run_id: 'run-1' });
    expect(reusedEntry!.reused_from).to.deep.equal({
      task_id: 'task-1',
      planned_at: at(57),
      revisions: 1,
      reflections: 1,
    });
    // what later runs' planners read about it
    expect(describeEntry(HistoryEntry.parse(reusedEntry))).to.contain(
      'task task-1: plan (reused from task-1) — Make the requested change',
    );
  });

  it('seed 001 §7.3 a plan whose last verification passed is not reused: the run plans again', async () => {
    const done = {
      type: 'execution',
      timestamp: at(50),
      task_id: 'task-1',
      action_id: 'verification',
      status: 'success',
      summary: 'all met',
    };
    const { outcome, llm } = await runScenario({
      sets: ['planning.reflection.trigger_interval=0'],
      files: { [HISTORY]: earlierRun([done]) },
      realReporting: true,
      steps: [
        json('planning', planWith([action('task_1', 'Something new')])),
        exec.say('DONE: did it'),
        json('completion', assessment(true)),
      ],
    });
    llm.assertAllUsed();
    expect(outcome.state).to.equal('COMPLETE');
    expect(outcome.revisions).to.equal(0);
  });

  it('seed 001 §7.3 a resumed run whose replan checkpoint asks for a new plan (answers arrived) plans again with them', async () => {
    const seen: ReplanCheckpoint['point'][] = [];
    const replan = {
      decide: async (checkpoint: ReplanCheckpoint): Promise<ReplanDirective> => {
        seen.push(checkpoint.point);
        return seen.length === 1
          ? { kind: 'replan', from: 'goal_understanding', reason: 'Answers: use ISO dates.' }
          : { kind: 'continue' };
      },
    };
    const { outcome, llm } = await runScenario({
      sets: ['planning.reflection.trigger_interval=0'],
      files: { [HISTORY]: earlierRun() },
      realReporting: true,
      overrides: { hooks: { replan } },
      steps: [
        json('planning', planWith([action('task_1', 'Write b.txt with an ISO date')])),
        exec.say('DONE: wrote b.txt'),
        json('completion', assessment(true)),
      ],
    });
    llm.assertAllUsed();
    expect(outcome.state).to.equal('COMPLETE');
    expect(seen[0]).to.equal('action_sequence');
    expect(userMessage(llm, 0)).to.contain('Answers: use ISO dates.');
    expect(outcome.revisions).to.equal(0);
  });

  it('seed 001 §7.3 planning.history.reuse_plan=false always plans afresh', async () => {
    const { llm } = await runScenario({
      sets: ['planning.reflection.trigger_interval=0', 'planning.history.reuse_plan=false'],
      files: { [HISTORY]: earlierRun() },
      realReporting: true,
      steps: [
        json('planning', planWith([action('task_1', 'Fresh')])),
        exec.say('DONE: fresh'),
        json('completion', assessment(true)),
      ],
    });
    llm.assertAllUsed();
  });

  describe('seed 001 §7.3 / §10.4 when a plan is reused (the rules)', () => {
    const resolved = resolveConfig([]);
    if (!isResolved(resolved)) throw new Error('default config');
    const config = resolved.config;
    const earlier = (patch: Partial<EarlierPlan> = {}): EarlierPlan => ({
      taskId: 't',
      plan: firstPlan,
      at: at(1),
      revisions: [],
      reflections: [],
      revisionPending: false,
      completed: false,
      ...patch,
    });
    const revisions = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ revision: i + 1, reason: 'r', at: at(1) }));

    it('reuses a valid plan with revisions left', () => {
      expect(reuseDecision(earlier({ revisions: revisions(2) }), config)).to.deep.include({
        reuse: true,
      });
    });
    it('plans again when the plan was carried out', () => {
      expect(reuseDecision(earlier({ completed: true }), config).reuse).to.equal(false);
    });
    it('plans again when a reflection asked for a revision that never came', () => {
      expect(reuseDecision(earlier({ revisionPending: true }), config).reuse).to.equal(false);
    });
    it('plans again when the revisions reached planning.revision.max_revisions (seed 001 §10.4)', () => {
      const decision = reuseDecision(earlier({ revisions: revisions(3) }), config);
      expect(decision).to.deep.include({ reuse: false });
      expect(decision.reuse === false && decision.why).to.match(/max_revisions/);
    });
    it('plans again when the stored plan is not a valid plan', () => {
      expect(reuseDecision(earlier({ plan: { goal: 'x' } }), config).reuse).to.equal(false);
    });
  });
});
