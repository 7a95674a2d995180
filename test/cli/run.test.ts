import type { ScriptedLlm } from '../../src/testkit/scripted-llm.ts';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import type { CliIo } from '../../src/cli/io.ts';
import { runLocal, type RunFactories } from '../../src/cli/commands/run-local.ts';
import type { RunOptions } from '../../src/cli/commands/run.ts';
import type { ChatReply, ChatRequest, LlmPort } from '../../src/core/llm-port.ts';
import { RunResultFile } from '../../src/report/result-file.ts';
import { FakeClock } from '../../src/core/clock.ts';
import { exec, scripted, json, toolCall, type Step } from '../support/script.ts';
import { action, assessment, planWith, reflection } from '../support/plans.ts';
import { makeTempRepo } from '../support/temp-repo.ts';

interface Captured {
  code: number;
  stdout: string;
  stderr: string;
}

function io(cwd: string, options: { env?: Record<string, string>; stdin?: string } = {}) {
  const out = { stdout: '', stderr: '' };
  let handler: ((signal: string) => void) | undefined;
  const value: CliIo = {
    argv: [],
    // scripts without replan decisions or reviews; their own tests turn them on
    env: {
      PATH: process.env.PATH ?? '',
      REPLANNING_ENABLED: 'false',
      MR_AGENT_REVIEW_ENABLED: 'false',
      // our own test world: commands run where the test is not root too (issue 19 §3)
      MR_AGENT_ISOLATION: 'accept-risk',
      ...(options.env ?? {}),
    },
    cwd,
    stdout: { write: (t: string) => (out.stdout += t) },
    stderr: { write: (t: string) => (out.stderr += t) },
    readStdin: async () => options.stdin,
    onSignal: (h) => {
      handler = h;
      return () => (handler = undefined);
    },
  };
  return { io: value, out, signal: (name: string) => handler?.(name) };
}

function factories(llm: LlmPort, graceMs = 5000): RunFactories {
  return { createLlm: () => llm, clock: new FakeClock(), graceMs };
}

async function run(
  cwd: string,
  options: RunOptions,
  steps: Step[],
  extra: { env?: Record<string, string>; stdin?: string } = {},
): Promise<Captured & { llm: ScriptedLlm }> {
  const llm = scripted(steps);
  const { io: cli, out } = io(cwd, extra);
  const code = await runLocal(cli, options, factories(llm));
  return { code, ...out, llm };
}

const script = (): Step[] => [
  json('planning', planWith([action('task_1', 'Write hello.txt')])),
  exec.tools(toolCall('write_file', { path: 'hello.txt', content: 'hi\n' })),
  exec.say('DONE: wrote hello.txt'),
  json('completion', assessment(true)),
];

describe('cli: mr-agent run (A5)', () => {
  let repo: Awaited<ReturnType<typeof makeTempRepo>>;
  beforeEach(async () => {
    repo = await makeTempRepo({ 'check.sh': 'test -f hello.txt\n' });
  });
  afterEach(() => repo.cleanup());

  it('A5 --task runs the task in --repo, prints notes and the result, exit 0', async () => {
    const { code, stdout, llm } = await run(
      path.dirname(repo.dir),
      { task: 'Write hello.txt', repo: 'repo', set: ['planning.reflection.trigger_interval=0'] },
      script(),
      { env: { MR_AGENT_TEST_COMMAND: 'sh check.sh' } },
    );
    llm.assertAllUsed();
    expect(code).to.equal(0);
    expect(await readFile(path.join(repo.dir, 'hello.txt'), 'utf8')).to.equal('hi\n');
    expect(stdout).to.contain('● note progress-1').and.contain('mr-agent: COMPLETE (completed)');
    // the real environment phase ran between planning and execution (E5)
    expect(stdout).to.match(/▸ Run details · 5 phases · node environment · /);
    const result = RunResultFile.parse(
      JSON.parse(await readFile(path.join(repo.dir, '.mr-agent/result.json'), 'utf8')),
    );
    expect(result).to.include({ status: 'succeeded', state: 'complete', exit_code: 0 });
    expect(result.validation.overall).to.equal('passed');
    expect(result.validation.commands[0]).to.include({ command: 'sh check.sh', passed: true });
  });

  it('A5 a Task YAML on stdin: task.repo, task.test and runner.max_loops are used; --json prints one line', async () => {
    const yaml = [
      'version: 1',
      'task:',
      '  id: TASK-7',
      '  title: Hello file',
      `  repo: ${repo.dir}`,
      '  prd:',
      '    text: Write hello.txt',
      '  test:',
      '    command: sh check.sh',
      'runner:',
      '  max_loops: 1',
      '',
    ].join('\n');
    const { code, stdout, stderr } = await run(
      '/',
      { json: true, set: ['planning.reflection.trigger_interval=0'] },
      [
        json('planning', planWith([action('task_1', 'Forget the file')])),
        exec.say('DONE: did nothing'),
        json('completion', assessment(true)),
        // max_loops: 1 allows one return to execution (seed 002 core §4.4)
        json(
          'reflection',
          reflection('partial', { reason: 'check.sh fails', actions: [action('task_1', 'Again')] }),
        ),
        exec.say('DONE: did nothing again'),
        json('completion', assessment(true)),
      ],
      { stdin: yaml },
    );
    expect(code).to.equal(1);
    const line = JSON.parse(stdout.trim()) as Record<string, unknown>;
    expect(line).to.include({ ok: false, state: 'FAILED', reason: 'max_loops', exit_code: 1 });
    expect(stderr).to.contain('● note progress-1');
    const note = await readFile(path.join(repo.dir, '.mr-agent/task-TASK-7.md'), 'utf8');
    expect(note).to.contain('# Task Note - TASK-7 - Hello file').and.contain('sh check.sh');
  });

  it('F3 with replanning enabled the run asks for replan decisions and carries them out', async () => {
    const decide = (point: string, fields: Record<string, unknown> = {}) =>
      json(`replan.${point}`, {
        replan_decision: { replan_needed: false, confidence: 0.9, reasoning: 'Fine.', ...fields },
      });
    const { code, llm } = await run(
      path.dirname(repo.dir),
      { task: 'Write hello.txt', repo: 'repo', set: ['planning.reflection.trigger_interval=0'] },
      [
        json('planning', planWith([action('task_1', 'Write hello.txt')])),
        decide('goal_understanding'),
        decide('task_decomposition'),
        decide('action_sequence'),
        exec.say('FAILED: the disk was busy'),
        decide('execution', { replan_needed: true, replan_type: 'retry', replan_level: 1 }),
        exec.tools(toolCall('write_file', { path: 'hello.txt', content: 'hi\n' })),
        exec.say('DONE: wrote hello.txt'),
        decide('execution'),
        json('completion', assessment(true)),
        decide('final_evaluation'),
      ],
      { env: { MR_AGENT_TEST_COMMAND: 'sh check.sh', REPLANNING_ENABLED: 'true' } },
    );
    llm.assertAllUsed();
    expect(code).to.equal(0);
    const [file] = await readdir(path.join(repo.dir, '.mr-agent/replan'));
    const state = JSON.parse(
      await readFile(path.join(repo.dir, '.mr-agent/replan', file!), 'utf8'),
    ) as { status: string; counters: { total: number } };
    expect(state).to.deep.include({ status: 'finished' });
    expect(state.counters.total).to.equal(1);
  });

  it('A5 a missing repository is a usage error (exit 2)', async () => {
    const llm = scripted([]);
    const { io: cli } = io(repo.dir);
    const error = await runLocal(cli, { task: 'x', repo: 'nope' }, factories(llm)).catch(
      (e: unknown) => e,
    );
    expect(error)
      .to.be.instanceOf(Error)
      .with.property('message', 'the repository folder does not exist');
  });

  it('M6 SIGTERM writes the final state (cancelled) and exits 143', async () => {
    const { io: cli, out, signal } = io(repo.dir);
    const inner = scripted([json('planning', planWith([action('task_1', 'Write hello.txt')]))]);
    const llm: LlmPort = {
      json: (request) => inner.json(request),
      chat: async (request: ChatRequest): Promise<ChatReply> => {
        signal('SIGTERM');
        throw request.signal?.reason as Error;
      },
    };
    const code = await runLocal(cli, { task: 'Write hello.txt' }, factories(llm));
    expect(code).to.equal(143);
    const result = RunResultFile.parse(
      JSON.parse(await readFile(path.join(repo.dir, '.mr-agent/result.json'), 'utf8')),
    );
    expect(result).to.include({ status: 'failed', state: 'cancelled', exit_code: 143 });
    const runs = JSON.parse(await readFile(path.join(repo.dir, '.mr-agent/runs.json'), 'utf8')) as {
      runs: Array<{ state: string }>;
    };
    expect(runs.runs[0]!.state).to.equal('cancelled');
    expect(out.stdout).to.contain('mr-agent: FAILED (cancelled)');
  });

  it('M6 exits after the grace period when the run does not end after SIGTERM', async () => {
    const { io: cli, signal } = io(repo.dir);
    const llm: LlmPort = {
      json: () => {
        signal('SIGTERM');
        return new Promise(() => undefined);
      },
      chat: () => new Promise(() => undefined),
    };
    // a grace period long enough for the end's files and note, short enough that the run is given up
    const code = await runLocal(cli, { task: 'x' }, factories(llm, 1000));
    expect(code).to.equal(143);
    const note = await readFile(path.join(repo.dir, '.mr-agent/notes/progress-1.md'), 'utf8');
    expect(note, note).to.contain('Cancelled').and.contain('did not stop within its grace period');
  });
});
