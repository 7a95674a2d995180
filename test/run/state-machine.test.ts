import { expect } from 'chai';
import { createMemoryLogger } from '../../src/log/logger.ts';
import { Redactor } from '../../src/log/redact.ts';
import { TaskStateMachine } from '../../src/core/state-machine.ts';

function machine(maxLoops = 10) {
  const { logger, lines } = createMemoryLogger({ redactor: new Redactor(), format: 'json' });
  return { fsm: new TaskStateMachine(maxLoops, logger, () => 42), lines };
}

describe('run: task state machine (seed 002 core §4, F6)', () => {
  it('F6 follows PENDING → PLANNING → RUNNING → VALIDATING → RUNNING → VALIDATING → COMPLETE, logging each step (L2)', () => {
    const { fsm, lines } = machine();
    for (const to of [
      'PLANNING',
      'RUNNING',
      'VALIDATING',
      'RUNNING',
      'VALIDATING',
      'COMPLETE',
    ] as const)
      fsm.to(to, 'test');
    expect(fsm.finished).to.equal(true);
    expect(lines).to.have.length(6);
    expect(JSON.parse(lines[0]!)).to.include({
      message: 'state transition',
      from: 'PENDING',
      to: 'PLANNING',
    });
  });

  const illegal: Array<[string[], string]> = [
    [[], 'RUNNING'],
    [[], 'COMPLETE'],
    [['PLANNING'], 'VALIDATING'],
    [['PLANNING', 'RUNNING'], 'COMPLETE'],
    [['PLANNING', 'FAILED'], 'PLANNING'],
    // seed 002 core §1.4: a task fails from PLANNING, RUNNING or VALIDATING; it starts by planning
    [[], 'FAILED'],
  ];
  for (const [path, to] of illegal) {
    it(`refuses ${[...(path.length ? path : ['PENDING'])].at(-1)} → ${to}`, () => {
      const { fsm } = machine();
      for (const step of path) fsm.to(step as never, 'test');
      expect(() => fsm.to(to as never, 'test')).to.throw(/cannot go from/);
    });
  }

  it('F6 seed 002 core §4.4 max_loops: N returns to RUNNING are allowed, the next one is refused', () => {
    const { fsm } = machine(3);
    expect([fsm.countLoop(), fsm.countLoop(), fsm.countLoop(), fsm.countLoop()]).to.deep.equal([
      true,
      true,
      true,
      false,
    ]);
    expect(fsm.loops).to.equal(3);
  });

  it('every state after PENDING may fail (seed 002 core §1.4)', () => {
    for (const path of [
      ['PLANNING'],
      ['PLANNING', 'RUNNING'],
      ['PLANNING', 'RUNNING', 'VALIDATING'],
    ]) {
      const { fsm } = machine();
      for (const step of path) fsm.to(step as never, 'test');
      fsm.to('FAILED', 'boom');
      expect(fsm.state).to.equal('FAILED');
    }
  });
});
