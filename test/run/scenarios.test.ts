import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import type { EnvironmentStep } from '../../src/core/ports.ts';
import { exec, json, toolCall } from '../support/script.ts';
import { action, assessment, planWith, reflection } from '../support/plans.ts';
import { runScenario, userMessage } from './scenario.ts';

const repoFiles = {
  'math.js': 'export function add(a, b) {\n  return a - b;\n}\n',
  'test.sh':
    'grep -q hello greeting.txt && grep -q "return a + b" math.js && test -f NOTES.md && echo "3 passed, 0 failed"\n',
};

const threeActions = planWith(
  [
    action('task_1', 'Create greeting.txt'),
    action('task_2', 'Fix add() in math.js', 'apply_patch'),
    action('task_3', 'Write NOTES.md'),
  ],
  ['greeting.txt says hello', 'add() returns the sum', 'the tests pass'],
);

const fixPatch =
  '--- a/math.js\n+++ b/math.js\n@@ -1,3 +1,3 @@\n export function add(a, b) {\n-  return a - b;\n+  return a + b;\n }\n';

function fakeEnvironment(calls: string[]): EnvironmentStep {
  return {
    detect: async () => ({
      detected_files: { 'package.json': '{}' },
      environment_type: 'node',
      dependencies: [],
      setup_commands: ['npm install'],
    }),
    setup: async (selected) => {
      calls.push(selected.name ?? '?');
      return {
        handoff: {
          environment_ready: true,
          environment_name: 'node',
          setup_status: 'success',
          errors: [],
        },
        setupCommands: 0,
        verificationsPassed: 1,
        verificationsTotal: 1,
        durationMs: 5,
      };
    },
    executionSection: async (handoff) =>
      `## Execution Environment Information\n\n**Current environment**: ${handoff.environment_name}\n**Setup status**: ${handoff.setup_status}`,
  };
}

describe('run: scenarios with a scripted model on a real git repository', () => {
  it('F6/F1/D5 plan → three actions editing files → tests pass → COMPLETE', async () => {
    const setups: string[] = [];
    const { outcome, llm, deps, dir } = await runScenario({
      files: repoFiles,
      test: 'sh test.sh',
      overrides: { environment: fakeEnvironment(setups) },
      steps: [
        json('planning', threeActions),
        exec.tools(toolCall('write_file', { path: 'greeting.txt', content: 'hello\n' })),
        exec.say('DONE: created greeting.txt'),
        exec.tools(toolCall('read_file', { path: 'math.js' })),
        exec.tools(toolCall('apply_patch', { patch: fixPatch })),
        exec.say('DONE: add() now adds'),
        exec.tools(toolCall('write_file', { path: 'NOTES.md', content: '# Notes\n' })),
        exec.say('DONE: wrote NOTES.md'),
        json('reflection', reflection('success')),
        json('completion', assessment(true, ['AC-1', 'AC-2', 'AC-3'])),
      ],
    });
    llm.assertAllUsed();
    expect(outcome, outcome.summary).to.include({
      state: 'COMPLETE',
      reason: 'completed',
      exitCode: 0,
    });
    expect(await readFile(path.join(dir, 'math.js'), 'utf8')).to.contain('return a + b;');
    expect(await readFile(path.join(dir, 'greeting.txt'), 'utf8')).to.equal('hello\n');
    expect(outcome.tests).to.have.length(1);
    expect(outcome.tests[0]).to.include({
      command: 'sh test.sh',
      passed: true,
      exitCode: 0,
      source: 'task',
    });
    expect(outcome.criteria.map((c) => c.passed)).to.deep.equal([true, true, true]);
    expect(outcome.changedFiles).to.have.members(['greeting.txt', 'math.js', 'NOTES.md']);
    expect(outcome.checklist.map((i) => `${i.id} ${i.status} ${i.label}`)).to.deep.equal([
      'A1 done task_1: Create greeting.txt',
      'A2 done task_2: Fix add() in math.js',
      'A3 done task_3: Write NOTES.md',
    ]);
    expect(deps.history.types()).to.deep.equal([
      'plan',
      'execution:A1',
      'execution:A2',
      'execution:A3',
      'reflection',
      'execution:verification',
    ]);
    expect(outcome.transitions.map((t) => `${t.from}>${t.to}`)).to.deep.equal([
      'PENDING>PLANNING',
      'PLANNING>RUNNING',
      'RUNNING>VALIDATING',
      'VALIDATING>COMPLETE',
    ]);
    expect(deps.reporter.phases()).to.deep.equal([
      'pre_planning:running',
      'pre_planning:done',
      'planning:running',
      'planning:done',
      'environment_setup:running',
      'environment_setup:done',
      'execution:running',
      'reflection:running',
      'reflection:done',
      'execution:done',
      'verification:running',
      'verification:done',
      'complete:done',
    ]);
    expect(deps.reporter.outcome).to.equal(outcome);
    expect(setups).to.deep.equal(['node']);
    expect(outcome.environment).to.include({ environment_ready: true, setup_status: 'success' });
    const executionSystem = llm.calls[1]!.messages[0]!.content!;
    expect(executionSystem).to.contain('**Current environment**: node');
    expect(userMessage(llm, 0)).to.contain('Detected environment type: node');
    expect(outcome.metaCalls.map((c) => c.purpose)).to.deep.equal([
      'planning',
      'reflection',
      'completion',
    ]);
    expect(outcome.tokens.byPurpose).to.have.keys([
      'planning',
      'execution',
      'reflection',
      'completion',
    ]);
    expect(deps.logLines.filter((l) => l.includes('state transition'))).to.have.length(4);
  });

  it('F2 an action error triggers reflection and a plan revision, then success', async () => {
    const { outcome, llm, deps, dir } = await runScenario({
      files: { 'test.sh': 'test -f config.js\n' },
      test: 'sh test.sh',
      steps: [
        json('planning', planWith([action('task_1', 'Edit config.js', 'apply_patch')])),
        exec.tools(toolCall('read_file', { path: 'config.js' })),
        exec.say('FAILED: config.js does not exist'),
        json(
          'reflection',
          reflection('failure', {
            reason: 'config.js must be created, not edited',
            actions: [action('task_1', 'Create config.js')],
          }),
        ),
        exec.tools(toolCall('write_file', { path: 'config.js', content: 'export default {};\n' })),
        exec.say('DONE: created config.js'),
        json('completion', assessment(true)),
      ],
    });
    llm.assertAllUsed();
    expect(outcome).to.include({ state: 'COMPLETE', revisions: 1, exitCode: 0 });
    expect(outcome.actions.map((a) => `${a.key}:${a.status}`)).to.deep.equal([
      'A1:failure',
      'A2:success',
    ]);
    expect(outcome.actions[0]!.error).to.equal('config.js does not exist');
    expect(outcome.actions[0]!.toolCalls[0]).to.include({ name: 'read_file', ok: false });
    expect(userMessage(llm, 3))
      .to.contain('Reflection trigger: error')
      .and.contain('no such file or folder');
    expect(deps.history.types()).to.deep.equal([
      'plan',
      'execution:A1',
      'reflection',
      'revision',
      'execution:A2',
      'execution:verification',
    ]);
    const revisedPlan = deps.reporter.plans()[1]!;
    expect(revisedPlan.revision).to.equal(1);
    expect(revisedPlan.items.map((i) => `${i.id}:${i.status}`)).to.deep.equal([
      'A1:failed',
      'A2:pending',
    ]);
    expect(await readFile(path.join(dir, 'config.js'), 'utf8')).to.equal('export default {};\n');
  });

  it('F2 max_revisions exceeded ends in the human-intervention result (seed 001 §10.4) and exit 1', async () => {
    const { outcome, llm, deps } = await runScenario({
      sets: ['planning.revision.max_revisions=1'],
      steps: [
        json('planning', planWith([action('task_1', 'Edit a.js', 'apply_patch')])),
        exec.say('FAILED: a.js is missing'),
        json(
          'reflection',
          reflection('failure', { reason: 'try b.js', actions: [action('task_1', 'Edit b.js')] }),
        ),
        exec.say('FAILED: b.js is missing too'),
        json(
          'reflection',
          reflection('failure', { reason: 'try c.js', actions: [action('task_1', 'Edit c.js')] }),
        ),
      ],
    });
    llm.assertAllUsed();
    expect(outcome).to.include({
      state: 'FAILED',
      reason: 'human_intervention',
      exitCode: 1,
      revisions: 1,
    });
    expect(outcome.completion).to.deep.include({
      phase: 'completion',
      status: 'requires_human_intervention',
    });
    const summary = (outcome.completion as { summary: Record<string, unknown> }).summary;
    expect(summary).to.include({
      goal_achieved: false,
      tasks_completed: 0,
      tasks_failed: 2,
      revision_attempts: 1,
    });
    expect(summary.reason).to.match(/max_revisions = 1/);
    expect(summary.recommendations).to.be.an('array').with.length.above(0);
    expect(outcome.transitions.at(-1)).to.include({ from: 'RUNNING', to: 'FAILED' });
    expect(deps.reporter.outcome?.reason).to.equal('human_intervention');
    expect(deps.history.types().slice(-2)).to.deep.equal(['execution:A2', 'reflection']);
  });

  it('F2 interval reflection fires every 3 actions', async () => {
    const actions = Array.from({ length: 7 }, (_, i) => action(`task_${i + 1}`, `Step ${i + 1}`));
    const steps = [json('planning', planWith(actions))];
    for (let i = 1; i <= 7; i++) {
      steps.push(exec.say(`DONE: step ${i}`));
      if (i % 3 === 0) steps.push(json('reflection', reflection('success')));
    }
    steps.push(json('completion', assessment(true)));
    const { outcome, llm } = await runScenario({ steps });
    llm.assertAllUsed();
    expect(outcome.state).to.equal('COMPLETE');
    expect(llm.calls.map((c) => c.purpose).join(' ')).to.equal(
      'planning execution execution execution reflection execution execution execution reflection execution completion',
    );
    expect(userMessage(llm, 4)).to.contain('Reflection trigger: interval');
    expect(outcome.reflections).to.have.length(2);
  });

  it('F6 max_loops reached → FAILED, with one VALIDATING → RUNNING round', async () => {
    const { outcome, llm } = await runScenario({
      maxLoops: 1,
      sets: ['planning.reflection.trigger_interval=0'],
      steps: [
        json('planning', planWith([action('task_1', 'First try')])),
        exec.say('DONE: first try'),
        json('completion', assessment(false)),
        json(
          'reflection',
          reflection('partial', { reason: 'AC-1 open', actions: [action('task_1', 'Second try')] }),
        ),
        exec.say('DONE: second try'),
        json('completion', assessment(false)),
      ],
    });
    llm.assertAllUsed();
    expect(outcome).to.include({
      state: 'FAILED',
      reason: 'max_loops',
      exitCode: 1,
      loops: 1,
      revisions: 0,
    });
    expect(outcome.transitions.map((t) => `${t.from}>${t.to}`)).to.deep.equal([
      'PENDING>PLANNING',
      'PLANNING>RUNNING',
      'RUNNING>VALIDATING',
      'VALIDATING>RUNNING',
      'RUNNING>VALIDATING',
      'VALIDATING>FAILED',
    ]);
    expect(userMessage(llm, 3)).to.contain('Reflection trigger: validation');
    expect(outcome.summary).to.match(/after 2 validation rounds \(runner.max_loops = 1 /);
  });
});
