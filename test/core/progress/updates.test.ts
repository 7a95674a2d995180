import { expect } from 'chai';
import {
  addUsage,
  changeForLevel,
  checklistProgress,
  currentPhase,
  endPhase,
  finishRun,
  keepsFinishedItems,
  revisePlan,
  setPlan,
  startPhase,
  updateItem,
} from '../../../src/core/progress/updates.ts';
import type { PlanChangeKind } from '../../../src/core/progress/model.ts';
import { executing, PLAN, sec, started, T0 } from '../../report/progress/scenario.ts';

describe('report/progress/state', () => {
  describe('F5 carrying progress over a revision (seed 003 §11.4.3)', () => {
    const table: Array<[PlanChangeKind, boolean]> = [
      ['partial_replan', true],
      ['action_regeneration', true],
      ['plan_revision', true],
      ['reflection', true],
      ['retry', true],
      ['task_redecomposition', false],
      ['goal_revision', false],
      ['full_replan', false],
      ['clarification_request', false],
    ];
    for (const [change, keeps] of table) {
      it(`${change} ${keeps ? 'keeps' : 'clears'} finished items`, () => {
        let s = setPlan(started(), PLAN, T0);
        s = updateItem(s, 'task_1', 'done');
        s = updateItem(s, 'task_2', 'failed', 'boom');
        s = revisePlan(s, {
          change,
          reason: 'r',
          at: sec(10),
          items: [{ id: 'task_2b', description: 'again', status: 'pending' }],
        });
        const items = s.plan!.current.items;
        expect(keepsFinishedItems(change)).to.equal(keeps);
        expect(items.map((i) => [i.id, i.status])).to.deep.equal(
          keeps
            ? [
                ['task_1', 'done'],
                ['task_2b', 'pending'],
              ]
            : [['task_2b', 'pending']],
        );
        expect(s.plan!.current.revision).to.equal(1);
        expect(s.plan!.current.previousProgress).to.deep.equal({ done: 1, total: 3 });
        expect(s.plan!.history[0]!.items[1]!.status).to.equal('failed');
      });
    }

    it('a finished item that stays in the new plan keeps its place and its check', () => {
      let s = updateItem(setPlan(started(), PLAN, T0), 'task_2', 'done');
      s = revisePlan(s, {
        change: 'partial_replan',
        reason: 'r',
        at: sec(5),
        items: [
          { id: 'task_0', description: 'first', status: 'pending' },
          { id: 'task_2', description: 'kept', status: 'pending' },
        ],
      });
      expect(s.plan!.current.items.map((i) => `${i.id}:${i.status}`)).to.deep.equal([
        'task_0:pending',
        'task_2:done',
      ]);
    });

    it('maps replan levels 1–5 to changes (seed 003 §7.4)', () => {
      expect([1, 2, 3, 4, 5].map(changeForLevel)).to.deep.equal([
        'retry',
        'partial_replan',
        'action_regeneration',
        'task_redecomposition',
        'goal_revision',
      ]);
      expect(changeForLevel(9)).to.equal('goal_revision');
    });

    it('a revision without a plan sets the first plan', () => {
      const s = revisePlan(started(), { change: 'full_replan', reason: 'x', at: T0, items: PLAN });
      expect(s.plan!.current.revision).to.equal(0);
    });
  });

  it('updates are pure: the input state is unchanged', () => {
    const before = executing();
    const copy = structuredClone(before);
    updateItem(before, 'task_2', 'done');
    startPhase(before, 'reflection', sec(500));
    addUsage(before, 'planning', { promptTokens: 1, completionTokens: 1 });
    expect(before).to.deep.equal(copy);
  });

  it('adds up the time of a phase entered several times', () => {
    let s = startPhase(started(), 'reflection', sec(10));
    s = endPhase(s, 'reflection', 'done', sec(13));
    s = startPhase(s, 'reflection', sec(20));
    s = endPhase(s, 'reflection', 'done', sec(25));
    expect(s.phases.reflection).to.include({
      state: 'done',
      totalMs: 8000,
      runs: 2,
      startedAt: sec(10),
    });
  });

  it('the current phase is the last running one', () => {
    let s = startPhase(executing(), 'reflection', sec(100));
    expect(currentPhase(s)).to.equal('reflection');
    s = endPhase(s, 'reflection', 'done', sec(101));
    expect(currentPhase(s)).to.equal('execution');
  });

  it('adds token usage per role and the cost when known', () => {
    let s = addUsage(started(), 'planning', { promptTokens: 10, completionTokens: 5 });
    s = addUsage(s, 'planning', { promptTokens: 1, completionTokens: 1 }, 0.5);
    expect(s.usage.byRole.planning).to.deep.equal({
      promptTokens: 11,
      completionTokens: 6,
      calls: 2,
    });
    expect(s.usage.costUsd).to.equal(0.5);
  });

  describe('finishRun', () => {
    it('H1 a failed run fails the running phase and skips the rest', () => {
      const s = finishRun(executing(), { state: 'failed', summary: 'x', at: sec(90) });
      expect(s.phases.execution.state).to.equal('failed');
      expect(s.phases.verification.state).to.equal('skipped');
      expect(s.phases.complete.state).to.equal('skipped');
      expect(s.plan!.current.items[1]).to.include({ status: 'pending', note: 'stopped' });
      expect(s.final).to.deep.equal({ state: 'failed', summary: 'x', finishedAt: sec(90) });
    });

    it('M6 a cancelled run names the reason on the phase', () => {
      const s = finishRun(executing(), { state: 'cancelled', summary: 'SIGTERM', at: sec(90) });
      expect(s.phases.execution).to.include({ state: 'failed', detail: 'cancelled' });
    });

    it('a complete run completes every running phase and the Complete phase', () => {
      const s = finishRun(executing(), { state: 'complete', summary: 'ok', at: sec(90) });
      expect(s.phases.execution.state).to.equal('done');
      expect(s.phases.complete.state).to.equal('done');
      expect(s.phases.verification.state).to.equal('skipped');
    });

    it('F4 a run waiting for an answer pauses its phase', () => {
      const s = finishRun(startPhase(started(), 'planning', sec(2)), {
        state: 'awaiting_answer',
        summary: 'waiting',
        at: sec(3),
      });
      expect(s.phases.planning).to.include({
        state: 'pending',
        detail: 'paused: awaiting an answer',
      });
      expect(s.phases.execution.state).to.equal('pending');
    });
  });

  it('counts done items', () => {
    expect(checklistProgress(PLAN)).to.deep.equal({ done: 0, total: 3 });
  });
});
