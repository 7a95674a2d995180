import { expect } from 'chai';
import { newTaskContext, transition } from '../../src/agent-runner/context.ts';
import { TASK_TRANSITIONS as TRANSITIONS, type TaskState } from '../../src/core/state-machine.ts';
import { createSilentLogger } from '../../src/log/logger.ts';
import { task } from './helpers.ts';

const STATES: TaskState[] = ['PENDING', 'PLANNING', 'RUNNING', 'VALIDATING', 'COMPLETE', 'FAILED'];
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
  it('seed 002 §1.4 only the FSM transitions of the core spec and data flow are possible', () => {
    for (const from of STATES) {
      for (const to of STATES) {
        const context = newTaskContext(task(), '/repo', 0);
        context.state = from;
        const attempt = () => transition(context, to, createSilentLogger());
        if (ALLOWED.has(`${from}→${to}`)) {
          attempt();
          expect(context.state).to.equal(to);
        } else {
          expect(attempt, `${from}→${to}`).to.throw(
            `invalid task state transition ${from} → ${to}`,
          );
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
