import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { CommandFailedError } from '../../src/errors/errors.ts';
import type { ChangeToDeliver, DeliveryStep } from '../../src/core/ports.ts';
import { exec, json, toolCall } from '../support/script.ts';
import { action, assessment, planWith } from '../support/plans.ts';
import { runScenario } from './scenario.ts';

function recordingDelivery(fail?: Error): DeliveryStep & { calls: ChangeToDeliver[] } {
  const calls: ChangeToDeliver[] = [];
  return {
    calls,
    async deliver(change) {
      calls.push(change);
      if (fail) throw fail;
      return {
        status: 'pushed',
        branch: 'feature/x',
        commit: '0123456789abcdef0123456789abcdef01234567',
        commitUrl: 'https://gitlab.test/g/p/-/commit/0123456789abcdef',
      };
    },
  };
}

const steps = (satisfied: boolean) => [
  json('planning', planWith([action('task_1', 'Create greeting.txt')], ['greeting.txt exists'])),
  exec.tools(toolCall('write_file', { path: 'greeting.txt', content: 'hello\n' })),
  exec.say('DONE: created greeting.txt'),
  json('completion', assessment(satisfied)),
];

describe('run: delivery after a complete verification (H3)', () => {
  it('a complete run hands the objective, the summary and the changed files to delivery; the notes show the commit', async () => {
    const delivery = recordingDelivery();
    const { outcome, dir } = await runScenario({
      realReporting: true,
      steps: steps(true),
      sets: ['planning.reflection.enabled=false'],
      overrides: { delivery },
    });
    expect(outcome.state).to.equal('COMPLETE');
    expect(delivery.calls).to.deep.equal([
      {
        objective: 'Make the requested change',
        summary: 'All criteria are met.',
        changedFiles: ['greeting.txt'],
      },
    ]);
    expect(outcome.delivery).to.include({ status: 'pushed', branch: 'feature/x' });
    const notes = path.join(dir, '.mr-agent', 'notes');
    const summary = await readFile(path.join(notes, 'summary-1.md'), 'utf8');
    expect(summary).to.contain('Pushed 01234567 to `feature/x`');
    // the closing reply points at the progress note (a file for a local run), which has the commit link
    expect(summary).to.match(/\[progress note\]\(file:\/\/.*progress-1\.md\)/);
    const progress = await readFile(path.join(notes, 'progress-1.md'), 'utf8');
    expect(progress).to.contain('Pushed 01234567 to `feature/x`');
    expect(progress).to.contain(
      '**Next:** review [the commit](https://gitlab.test/g/p/-/commit/0123456789abcdef).',
    );
  });

  it('an incomplete run delivers nothing', async () => {
    const delivery = recordingDelivery();
    const { outcome } = await runScenario({
      steps: [
        ...steps(false),
        json('reflection', {
          phase: 'reflection',
          reflection: {
            action_evaluated: 'verification',
            status: 'partial',
            evaluation: 'Nothing more to do.',
            issues_identified: [],
            plan_revision_needed: false,
          },
        }),
      ],
      sets: ['planning.reflection.enabled=true', 'planning.reflection.trigger_interval=0'],
      overrides: { delivery },
    });
    expect(outcome.state).to.equal('FAILED');
    expect(delivery.calls).to.have.length(0);
    expect(outcome.delivery).to.equal(undefined);
  });

  it('a refused push fails the run with the reason', async () => {
    const refused = new CommandFailedError('git push', 'the push was refused (feature/x): denied', {
      exitCode: 1,
      where: 'delivery',
    });
    const { outcome } = await runScenario({
      steps: steps(true),
      sets: ['planning.reflection.enabled=false'],
      overrides: { delivery: recordingDelivery(refused) },
    });
    expect(outcome.state).to.equal('FAILED');
    expect(outcome.reason).to.equal('error');
    expect(outcome.summary).to.contain('the push was refused');
  });
});
