import { expect } from 'chai';
import { newTaskContext } from '../../src/agent-runner/context.ts';
import { FakeClock } from '../../src/core/clock.ts';
import { TASK_TRANSITIONS as TRANSITIONS, type TaskState } from '../../src/core/state-machine.ts';
import { createSilentLogger } from '../../src/log/logger.ts';
import { task } from './helpers.ts';

const STATES: TaskState[] = ['PENDING', 'PLANNING', 'RUNNING', 'VALIDATING', 'COMPLETE', 'FAILED'];
/** A way from PENDING to each state. */
const PATHS: Record<TaskState, TaskState[]> = {
  PENDING: [],
  PLANNING: ['PLANNING'],
  RUNNING: ['PLANNING', 'RUNNING'],
  VALIDATING: ['PLANNING', 'RUNNING', 'VALIDATING'],
  COMPLETE: ['PLANNING', 'RUNNING', 'VALIDATING', 'COMPLETE'],
  FAILED: ['PLANNING', 'FAILED'],
};
const ALLOWED = new Set([
  'PENDING→PLANNING',
  'PLANNING→RUNNING',
  'PLANNING→FAILED',
  'RUNNING→VALIDATING',
  'RUNNING→FAILED',
  'VALIDATING→RUNNING',
  'VALIDATING→COMPLETE',
  'VALIDATING→FAILED',
]);

describe('agent-runner/context', () => {
  it('seed 002 §1.4 the task context drives the one task state machine: only the FSM transitions of the core spec and data flow are possible', () => {
    for (const from of STATES) {
      for (const to of STATES) {
        const { fsm } = newTaskContext(task(), '/repo', new FakeClock(), createSilentLogger());
        for (const step of PATHS[from]) fsm.to(step, 'test');
        const attempt = () => fsm.to(to, 'test');
        if (ALLOWED.has(`${from}→${to}`)) {
          attempt();
          expect(fsm.state).to.equal(to);
        } else {
          expect(attempt, `${from}→${to}`).to.throw(`the task cannot go from ${from} to ${to}`);
        }
      }
    }
    expect(Object.values(TRANSITIONS).flat()).to.have.length(ALLOWED.size);
  });

  it('COMPLETE and FAILED are terminal', () => {
    expect(TRANSITIONS.COMPLETE).to.deep.equal([]);
    expect(TRANSITIONS.FAILED).to.deep.equal([]);
  });
});
