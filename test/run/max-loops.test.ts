import { expect } from 'chai';
import { runAgentRunnerTask } from '../../src/run/agent-runner.ts';
import { LimitReachedError } from '../../src/errors/errors.ts';
import { deps, FakeWorker, task, transitions } from '../agent-runner/helpers.ts';
import { reply, ScriptedLlm } from '../agent-runner/scripted-llm.ts';
import { tempDir } from '../workers/helpers.ts';
import { action, assessment, planWith, reflection } from '../support/plans.ts';
import { exec, json } from '../support/script.ts';
import { runScenario } from './scenario.ts';

/**
 * Seed 002 core §4.4: `runner.max_loops` bounds the VALIDATING → RUNNING
 * transitions; the task fails when one more would exceed it. So with
 * `max_loops: N` both the builtin run and the worker mode go back to RUNNING
 * N times, validate N + 1 times and then fail.
 */
const MAX = 2;

const TRANSITIONS_AT_THE_LIMIT = [
  'PENDING→PLANNING',
  'PLANNING→RUNNING',
  'RUNNING→VALIDATING',
  'VALIDATING→RUNNING',
  'RUNNING→VALIDATING',
  'VALIDATING→RUNNING',
  'RUNNING→VALIDATING',
  'VALIDATING→FAILED',
];

describe('seed 002 core §4.4 max_loops: the builtin run and the worker mode count alike', () => {
  it('seed 002 core §4.4 builtin run: max_loops N allows N VALIDATING → RUNNING returns, then FAILED', async () => {
    const more = (n: number) =>
      json(
        'reflection',
        reflection('partial', { reason: 'AC-1 open', actions: [action('task_1', `Try ${n}`)] }),
      );
    const { outcome, llm } = await runScenario({
      maxLoops: MAX,
      sets: ['planning.reflection.trigger_interval=0'],
      steps: [
        json('planning', planWith([action('task_1', 'Try 1')])),
        exec.say('DONE: try 1'),
        json('completion', assessment(false)),
        more(2),
        exec.say('DONE: try 2'),
        json('completion', assessment(false)),
        more(3),
        exec.say('DONE: try 3'),
        json('completion', assessment(false)),
      ],
    });
    llm.assertAllUsed();
    expect(outcome).to.include({ state: 'FAILED', reason: 'max_loops', loops: MAX });
    expect(outcome.transitions.map((t) => `${t.from}→${t.to}`)).to.deep.equal(
      TRANSITIONS_AT_THE_LIMIT,
    );
    expect(outcome.actions).to.have.length(MAX + 1);
    expect(outcome.summary).to.match(/runner\.max_loops = 2/);
  });

  it('seed 002 core §4.4 worker mode: max_loops N allows N VALIDATING → RUNNING returns, then FAILED', async () => {
    const repo = await tempDir('repo');
    const llm = new ScriptedLlm([
      reply.plan('hello.txt exists'),
      reply.runWorker('try 1', 'codex-cli'),
      reply.assess(false, []),
      reply.runWorker('try 2', 'codex-cli'),
      reply.assess(false, []),
      reply.runWorker('try 3', 'codex-cli'),
      reply.assess(false, []),
    ]);
    const worker = new FakeWorker('codex-cli', [{}, {}, {}]);
    const d = deps(llm, repo, { worker });

    const result = await runAgentRunnerTask(task({ maxLoops: MAX }), d);

    llm.assertAllUsed();
    expect(result.state).to.equal('FAILED');
    expect(result.error).to.be.instanceOf(LimitReachedError);
    expect(transitions(d.lines)).to.deep.equal(TRANSITIONS_AT_THE_LIMIT);
    expect(worker.requests).to.have.length(MAX + 1);
  });
});
