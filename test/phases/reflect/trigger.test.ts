import { expect } from 'chai';
import { loadConfig } from '../../../src/config/load.ts';
import { reflectionTrigger } from '../../../src/phases/reflect/index.ts';
import { ReflectionReply } from '../../../src/core/reflection.ts';
import type { ActionRecord } from '../../../src/core/records.ts';
import { action, reflection } from '../../support/plans.ts';

const record = (status: 'success' | 'failure'): ActionRecord => ({
  key: 'A1',
  action: action('task_1', 'x'),
  status,
  summary: '',
  toolCalls: [],
  turns: 1,
  startedAt: 0,
  finishedAt: 0,
});

async function config(sets: string[] = []) {
  return (await loadConfig({ env: {}, file: null, sets })).config;
}

describe('reflect: when to reflect (seed 001 §7.4.1 _should_reflect) and the reply schema', () => {
  const cases: Array<[string, string[], 'success' | 'failure', number, string | undefined]> = [
    ['error, trigger_on_error on', [], 'failure', 1, 'error'],
    [
      'error, trigger_on_error off, not at interval',
      ['planning.reflection.trigger_on_error=false'],
      'failure',
      1,
      undefined,
    ],
    ['success at the interval', [], 'success', 3, 'interval'],
    ['success at twice the interval', [], 'success', 6, 'interval'],
    ['success between intervals', [], 'success', 4, undefined],
    ['interval 0 is off', ['planning.reflection.trigger_interval=0'], 'success', 3, undefined],
    ['reflection disabled', ['planning.reflection.enabled=false'], 'failure', 3, undefined],
    ['error at the interval counts as error', [], 'failure', 3, 'error'],
  ];
  for (const [label, sets, status, count, expected] of cases) {
    it(`F2 ${label} → ${expected ?? 'no reflection'}`, async () => {
      expect(reflectionTrigger(await config(sets), record(status), count)).to.equal(expected);
    });
  }

  it('requires plan_revision when plan_revision_needed is true', () => {
    const reply = reflection('failure');
    reply.reflection.plan_revision_needed = true;
    const result = ReflectionReply.safeParse(reply);
    expect(result.success).to.equal(false);
    expect(result.error?.issues[0]).to.include({
      message: 'required when reflection.plan_revision_needed is true',
    });
  });

  it('accepts the seed 001 reflection with a revision', () => {
    const reply = reflection('failure', { reason: 'r', actions: [action('task_2', 'y')] });
    expect(ReflectionReply.parse(reply).plan_revision?.updated_action_plan.actions).to.have.length(
      1,
    );
  });
});
