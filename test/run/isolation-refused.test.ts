import { expect } from 'chai';
import { promptFiles } from '../../src/llm/prompt-files.ts';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { CommandIsolation } from '../../src/core/isolation.ts';
import type { Plan } from '../../src/core/plan.ts';
import { environmentStep } from '../../src/phases/environment/step.ts';
import { runTask } from '../../src/run/orchestrator.ts';
import { taskFromText } from '../../src/task/task-yaml.ts';
import { action, assessment, planWith } from '../support/plans.ts';
import { testDeps } from '../support/run-deps.ts';
import { exec, json, scripted, toolCall } from '../support/script.ts';
import { makeTempRepo } from '../support/temp-repo.ts';

/**
 * Issue 19 §3: where commands cannot run as another user and the risk is not
 * accepted (`security.isolation: required`), no repository command runs —
 * not the setup, not the model's `run_command`, not the tests — and each
 * says why. Isolation is given to the run here, so the test is the same on
 * every machine, root or not.
 */
const REFUSED: CommandIsolation = {
  kind: 'same-user',
  reason: 'mr-agent is not running as root (uid 1000)',
  accepted: false,
};

function planWithSetup(): Plan {
  const plan = planWith([action('task_1', 'Run the build', 'run_command')]);
  plan.selected_environment = {
    name: 'node',
    reason: 'package.json',
    detected_files: ['package.json'],
    setup_commands: ['touch setup-ran'],
    verification: [{ command: 'touch check-ran; echo ok', expected_output: 'ok' }],
  };
  return plan;
}

describe('run: repository commands are refused without isolation (issue 19 §3)', () => {
  it('without isolation and without accept-risk, setup is skipped, run_command is refused and the tests are not run — each saying why (issue 19 §3)', async () => {
    const repo = await makeTempRepo({ 'package.json': '{"scripts":{"test":"touch test-ran"}}' });
    try {
      const llm = scripted([
        json('planning', planWithSetup()),
        exec.tools(toolCall('run_command', { command: 'touch model-ran' })),
        exec.say('DONE: could not run the build'),
        json('completion', assessment(true)),
      ]);
      const deps = await testDeps(llm, {
        sets: ['planning.reflection.trigger_interval=0', 'execution.test_command=touch test-ran'],
        overrides: { isolation: REFUSED },
      });
      deps.environment = environmentStep({
        ...deps,
        repoDir: repo.dir,
        prompts: promptFiles(),
        isolation: REFUSED,
      });

      const outcome = await runTask(deps, {
        task: taskFromText('Run the build', { repo: repo.dir, id: 't1' }),
        repoDir: repo.dir,
        maxLoops: 1,
      });

      for (const canary of ['setup-ran', 'check-ran', 'model-ran', 'test-ran'])
        expect(existsSync(path.join(repo.dir, canary)), canary).to.equal(false);
      const [setup] = deps.reporter.environments;
      expect(setup?.handoff.setup_status).to.equal('skipped');
      expect(setup?.detail).to.contain('commands are not run: mr-agent is not running as root');
      const toolReply = JSON.stringify(llm.calls[2]!.messages);
      expect(toolReply).to.contain('commands are not run: mr-agent is not running as root');
      expect(toolReply).to.contain('accept-risk');
      const completion = JSON.stringify(llm.calls.at(-1)!.messages);
      expect(completion).to.contain('The tests were not run: commands are not run');
      expect(outcome.tests).to.deep.equal([]);
    } finally {
      await repo.cleanup();
    }
  });
});
