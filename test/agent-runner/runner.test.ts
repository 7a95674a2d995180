import { expect } from 'chai';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runAgentRunnerTask } from '../../src/run/agent-runner.ts';
import {
  CancelledError,
  ConfigError,
  LimitReachedError,
  ModelBehaviorError,
} from '../../src/errors/errors.ts';
import { tempDir } from '../workers/helpers.ts';
import { deps, FakeWorker, task, transitions } from './helpers.ts';
import { reply, ScriptedLlm } from './scripted-llm.ts';

describe('agent-runner/runner', () => {
  it('seed 002 plan → run_worker → complete: PENDING→PLANNING→RUNNING→VALIDATING→COMPLETE, exit 0', async () => {
    const repo = await tempDir('repo');
    const llm = new ScriptedLlm([
      reply.plan('hello.txt exists', 'it says hello'),
      reply.runWorker('Create hello.txt containing "hello".', 'codex-cli'),
      reply.assess(true, ['AC-1', 'AC-2']),
    ]);
    const worker = new FakeWorker('codex-cli', [{ summary: 'Created hello.txt' }]);
    const d = deps(llm, repo, { worker });

    const result = await runAgentRunnerTask(task(), d);

    llm.assertAllUsed();
    expect(result.state).to.equal('COMPLETE');
    expect(result.exitCode).to.equal(0);
    expect(result.error).to.equal(undefined);
    expect(transitions(d.lines)).to.deep.equal([
      'PENDING→PLANNING',
      'PLANNING→RUNNING',
      'RUNNING→VALIDATING',
      'VALIDATING→COMPLETE',
    ]);
    expect(llm.requests.map((r) => [r.schemaName, r.purpose, r.role])).to.deep.equal([
      ['plan_task', 'planning', 'planning'],
      ['next_action', 'execution', 'execution'],
      ['completion_assessment', 'completion', 'reflection'],
    ]);
    expect(worker.requests).to.have.length(1);
    expect(worker.requests[0]!.prompt).to.equal('Create hello.txt containing "hello".');
    expect(worker.requests[0]!.repoDir).to.equal(repo);
    expect(worker.requests[0]!.maxRunTimeSec).to.equal(60);
    expect(result.taskNotePath).to.equal(path.join(repo, '.mr-agent', 'task-TASK-1.md'));
    expect(result.context.acceptanceCriteria.map((c) => c.passed)).to.deep.equal([true, true]);
  });

  it('seed 002 plan → immediate mark_complete completes without a worker run', async () => {
    const repo = await tempDir('repo');
    const llm = new ScriptedLlm([
      reply.plan('nothing to do'),
      reply.markComplete(),
      reply.assess(true, ['AC-1']),
    ]);
    const worker = new FakeWorker('codex-cli', []);

    const result = await runAgentRunnerTask(task(), deps(llm, repo, { worker }));

    llm.assertAllUsed();
    expect(result.state).to.equal('COMPLETE');
    expect(result.context.workerRuns).to.deep.equal([]);
  });

  it('a worker failure goes back to the meta-agent, which decides the next step', async () => {
    const repo = await tempDir('repo');
    const llm = new ScriptedLlm([
      reply.plan('hello.txt exists'),
      reply.runWorker('Create hello.txt', 'codex-cli'),
      reply.assess(false, []),
      reply.runWorker('Create hello.txt; the last attempt failed on a typo', 'codex-cli'),
      reply.assess(true, ['AC-1']),
    ]);
    const worker = new FakeWorker('codex-cli', [
      { exitCode: 1, error: 'exited with code 1', rawOutput: 'boom: typo in path' },
      { exitCode: 0 },
    ]);
    const d = deps(llm, repo, { worker });

    const result = await runAgentRunnerTask(task(), d);

    expect(result.state).to.equal('COMPLETE');
    expect(result.context.fsm.loops).to.equal(1);

    const user = llm.requests[3]!.messages[1]!.content as string;
    expect(user).to.contain('"exit_code": 1');
    expect(user).to.contain('"error": "exited with code 1"');
    expect(user).to.contain('boom: typo in path');
    expect(transitions(d.lines)).to.deep.equal([
      'PENDING→PLANNING',
      'PLANNING→RUNNING',
      'RUNNING→VALIDATING',
      'VALIDATING→RUNNING',
      'RUNNING→VALIDATING',
      'VALIDATING→COMPLETE',
    ]);
  });

  it('seed 002 §1.4 max_loops counts VALIDATING→RUNNING; reaching it fails the task (exit 1)', async () => {
    const repo = await tempDir('repo');
    const llm = new ScriptedLlm([
      reply.plan('hello.txt exists'),
      reply.runWorker('try 1', 'codex-cli'),
      reply.assess(false, []),
      reply.runWorker('try 2', 'codex-cli'),
      reply.assess(false, [], ['hello.txt is still missing']),
    ]);
    const worker = new FakeWorker('codex-cli', [{}, {}]);

    const result = await runAgentRunnerTask(task({ maxLoops: 1 }), deps(llm, repo, { worker }));

    llm.assertAllUsed();
    expect(result.state).to.equal('FAILED');
    expect(result.exitCode).to.equal(1);
    expect(result.error).to.be.instanceOf(LimitReachedError);
    const note = await readFile(result.taskNotePath, 'utf8');
    expect(note).to.contain('- State: FAILED');
    expect(note).to.contain('The task failed: the task was not complete after 1 loops');
    expect(note).to.contain('- Remaining risk: hello.txt is still missing');
  });

  it('seed 002 §2.3 an unknown action fails the task at once, without re-asking', async () => {
    const repo = await tempDir('repo');
    const llm = new ScriptedLlm([reply.plan('x'), reply.action('ask_human')]);

    const result = await runAgentRunnerTask(
      task(),
      deps(llm, repo, { worker: new FakeWorker('codex-cli', []) }),
    );

    llm.assertAllUsed();
    expect(result.state).to.equal('FAILED');
    expect(result.error).to.be.instanceOf(ModelBehaviorError);
    expect((result.error as Error).message).to.equal(
      'the meta-agent chose an unknown action "ask_human"',
    );
  });

  it('seed 002 §2.5 an invalid reply is re-asked; after 3 re-asks the task fails', async () => {
    const repo = await tempDir('repo');
    const bad = { call: 'plan_task' as const, reply: '```yaml\ntype: plan_task\n```' };
    const llm = new ScriptedLlm([bad, bad, bad, bad]);

    const result = await runAgentRunnerTask(
      task(),
      deps(llm, repo, { worker: new FakeWorker('codex-cli', []) }),
    );

    llm.assertAllUsed();
    expect(result.state).to.equal('FAILED');
    expect(result.error).to.be.instanceOf(ModelBehaviorError);
    const note = await readFile(result.taskNotePath, 'utf8');
    expect(note).to.match(/#### plan_task at .*\n/);
    expect(note).to.contain('Error: the plan_task reply did not match its schema after 3 re-asks');
  });

  it('a reply fixed on a re-ask is used, and the Task Note shows the re-ask', async () => {
    const repo = await tempDir('repo');
    const llm = new ScriptedLlm([
      { call: 'plan_task', reply: { type: 'plan_task', acceptance_criteria: [] } },
      reply.plan('x'),
      reply.markComplete(),
      reply.assess(true, ['AC-1']),
    ]);

    const result = await runAgentRunnerTask(
      task(),
      deps(llm, repo, { worker: new FakeWorker('codex-cli', []) }),
    );

    expect(result.state).to.equal('COMPLETE');
    expect(result.context.metaCalls[0]!.reasks).to.equal(1);
    expect(await readFile(result.taskNotePath, 'utf8')).to.contain('Re-asks: 1');
  });

  it('run_worker without worker_call is invalid and re-asked', async () => {
    const repo = await tempDir('repo');
    const llm = new ScriptedLlm([
      reply.plan('x'),
      reply.action('run_worker'),
      reply.markComplete(),
      reply.assess(true, ['AC-1']),
    ]);

    const result = await runAgentRunnerTask(
      task(),
      deps(llm, repo, { worker: new FakeWorker('codex-cli', []) }),
    );

    llm.assertAllUsed();
    expect(result.state).to.equal('COMPLETE');
    expect(result.context.metaCalls[1]!.reasks).to.equal(1);
  });

  it('a configured test command gates completion; its result is in the Task Note', async () => {
    const repo = await tempDir('repo');
    const llm = new ScriptedLlm([
      reply.plan('hello.txt exists'),
      reply.runWorker('create it', 'codex-cli'),
      reply.assess(true, ['AC-1']),
      reply.runWorker('create it for real', 'codex-cli'),
      reply.assess(true, ['AC-1']),
    ]);
    const worker = {
      kind: 'codex-cli',
      calls: 0,
      async runWorker(request: { repoDir: string }) {
        this.calls += 1;
        if (this.calls === 2) await writeFile(path.join(request.repoDir, 'hello.txt'), 'hello\n');
        return new FakeWorker('codex-cli', [{}]).runWorker(request as never);
      },
    };

    const result = await runAgentRunnerTask(
      task({ test: { command: 'test -f hello.txt && echo present', cwd: '.' } }),
      deps(llm, repo, { worker }),
    );

    llm.assertAllUsed();
    expect(result.state).to.equal('COMPLETE');
    expect(result.context.fsm.loops).to.equal(1);
    const note = await readFile(result.taskNotePath, 'utf8');
    expect(note).to.contain('- Command: `test -f hello.txt && echo present`');
    expect(note).to.contain('- ExitCode: 0');
    expect(note).to.contain('present');
  });

  it('J3 runner.meta.system_prompt replaces the bundled system prompt; the protocol shape stays in the call prompt', async () => {
    const repo = await tempDir('repo');
    const bundled = await readFile('prompts/meta/system.md', 'utf8');
    const run = async (systemPrompt?: string) => {
      const llm = new ScriptedLlm([
        reply.plan('x'),
        reply.markComplete(),
        reply.assess(true, ['AC-1']),
      ]);
      await runAgentRunnerTask(
        task({ meta: { kind: 'openai-chat', ...(systemPrompt ? { systemPrompt } : {}) } }),
        deps(llm, repo, { worker: new FakeWorker('codex-cli', []) }),
      );
      return llm.requests[0]!.messages;
    };

    const withDefault = await run();
    const overridden = await run('You are a careful release manager.');

    expect(withDefault[0]).to.deep.equal({ role: 'system', content: bundled.trim() });
    expect(overridden[0]).to.deep.equal({
      role: 'system',
      content: 'You are a careful release manager.',
    });
    expect(overridden[1]!.content).to.contain('"type": "plan_task"');
  });

  it('J3 a prompts.directory file replaces the bundled call prompt', async () => {
    const repo = await tempDir('repo');
    const dir = await tempDir('prompts');
    await mkdir(path.join(dir, 'meta'));
    await writeFile(path.join(dir, 'meta', 'plan-task.md'), 'CUSTOM PLAN\n{{request}}');
    const llm = new ScriptedLlm([
      reply.plan('x'),
      reply.markComplete(),
      reply.assess(true, ['AC-1']),
    ]);

    await runAgentRunnerTask(
      task(),
      deps(llm, repo, { worker: new FakeWorker('codex-cli', []), settings: { promptsDir: dir } }),
    );

    expect(llm.requests[0]!.messages[1]!.content).to.match(/^CUSTOM PLAN\n\{/);
    expect(llm.requests[1]!.messages[1]!.content).to.match(/^Call: next_action/);
  });

  it('a missing PRD file fails in PLANNING with a ConfigError (exit 2) before any LLM call', async () => {
    const repo = await tempDir('repo');
    const llm = new ScriptedLlm([]);

    const result = await runAgentRunnerTask(
      task({ prd: { path: 'docs/missing.md' } }),
      deps(llm, repo, { worker: new FakeWorker('codex-cli', []) }),
    );

    expect(result.state).to.equal('FAILED');
    expect(result.exitCode).to.equal(2);
    expect(result.error).to.be.instanceOf(ConfigError);
    expect(llm.requests).to.deep.equal([]);
    expect(await readFile(result.taskNotePath, 'utf8')).to.contain(
      'task.prd.path: cannot read the PRD file',
    );
  });

  it('a PRD file is read relative to the repository', async () => {
    const repo = await tempDir('repo');
    await mkdir(path.join(repo, 'docs'));
    await writeFile(path.join(repo, 'docs', 'prd.md'), 'The PRD from a file.');
    const llm = new ScriptedLlm([
      reply.plan('x'),
      reply.markComplete(),
      reply.assess(true, ['AC-1']),
    ]);

    const result = await runAgentRunnerTask(
      task({ prd: { path: 'docs/prd.md' } }),
      deps(llm, repo, { worker: new FakeWorker('codex-cli', []) }),
    );

    expect(result.state).to.equal('COMPLETE');
    expect(llm.requests[0]!.messages[1]!.content).to.contain('The PRD from a file.');
    expect(await readFile(result.taskNotePath, 'utf8')).to.contain('The PRD from a file.');
  });

  it('a cancelled run fails with CancelledError and still writes the Task Note', async () => {
    const repo = await tempDir('repo');
    const controller = new AbortController();
    controller.abort();
    const llm = new ScriptedLlm([]);

    const result = await runAgentRunnerTask(
      task(),
      deps(llm, repo, { worker: new FakeWorker('codex-cli', []), signal: controller.signal }),
    );

    expect(result.state).to.equal('FAILED');
    expect(result.error).to.be.instanceOf(CancelledError);
    expect(await readFile(result.taskNotePath, 'utf8')).to.contain('- State: FAILED');
  });

  it('secrets of runner.worker.env are masked in the Task Note and in what the meta-agent sees', async () => {
    const repo = await tempDir('repo');
    const key = 'sk-secret-worker-key-42';
    const llm = new ScriptedLlm([
      reply.plan('x'),
      reply.runWorker('go', 'codex-cli'),
      reply.assess(false, []),
      reply.markComplete(),
      reply.assess(true, ['AC-1']),
    ]);
    const worker = new FakeWorker('codex-cli', [
      { rawOutput: `using key ${key}`, summary: `key ${key}` },
    ]);

    const result = await runAgentRunnerTask(
      task({ worker: { kind: 'codex-cli', maxRunTimeSec: 60, env: { CODEX_API_KEY: key } } }),
      deps(llm, repo, { worker }),
    );

    expect(result.state).to.equal('COMPLETE');
    const note = await readFile(result.taskNotePath, 'utf8');
    expect(note).not.to.contain(key);
    expect(note).to.contain('using key [MASKED]');
    for (const request of llm.requests)
      for (const message of request.messages) expect(message.content).not.to.contain(key);
  });

  it('the worker model of the Task YAML wins over the model the meta-agent asks for', async () => {
    const repo = await tempDir('repo');
    const script = () => [
      reply.plan('x'),
      reply.runWorker('go', 'gemini-cli', 'meta-choice'),
      reply.assess(true, ['AC-1']),
    ];
    const byMeta = new FakeWorker('codex-cli', [{}]);
    const byTask = new FakeWorker('codex-cli', [{}]);

    const first = await runAgentRunnerTask(
      task(),
      deps(new ScriptedLlm(script()), repo, { worker: byMeta }),
    );
    await runAgentRunnerTask(
      task({ worker: { kind: 'codex-cli', model: 'task-choice', maxRunTimeSec: 60, env: {} } }),
      deps(new ScriptedLlm(script()), repo, { worker: byTask }),
    );

    expect(byMeta.requests[0]!.model).to.equal('meta-choice');
    expect(byTask.requests[0]!.model).to.equal('task-choice');
    expect(first.context.notes[0]).to.contain(
      'asked for worker "gemini-cli"; the configured codex-cli ran instead',
    );
  });
});
