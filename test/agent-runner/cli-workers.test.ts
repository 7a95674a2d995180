import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { runAgentRunnerTask } from '../../src/run/agent-runner.ts';
import { ConfigError, LimitReachedError } from '../../src/errors/errors.ts';
import { createMemoryLogger } from '../../src/log/logger.ts';
import { Redactor } from '../../src/log/redact.ts';
import { systemClock } from '../../src/core/clock.ts';
import { ExecaShell } from '../../src/shell/execa-shell.ts';
import { parseTaskYaml, type TaskSpec } from '../../src/task/task-yaml.ts';
import type { ExternalWorkerKind } from '../../src/workers/port.ts';
import { fakeCalls, hostEnv, HOST_SECRETS, tempDir } from '../workers/helpers.ts';
import { reply, ScriptedLlm } from './scripted-llm.ts';

/** Host variables holding each CLI's credential, referenced as `env:NAME` from the Task YAML. */
const KEY_VAR: Record<ExternalWorkerKind, string> = {
  'codex-cli': 'CODEX_API_KEY',
  'claude-code': 'ANTHROPIC_API_KEY',
  'gemini-cli': 'GEMINI_API_KEY',
};
const CLI: Record<ExternalWorkerKind, string> = {
  'codex-cli': 'codex',
  'claude-code': 'claude',
  'gemini-cli': 'gemini',
};
const KEY_VALUE = 'worker-credential-value-777';

function taskYaml(kind: ExternalWorkerKind, log: string, extra = ''): string {
  return [
    'version: 1',
    'task:',
    `  id: TASK-${kind}`,
    '  title: Greeting file',
    '  prd:',
    '    text: |',
    '      Add a file that greets the reader.',
    'runner:',
    '  max_loops: 2',
    '  worker:',
    `    kind: ${kind}`,
    '    max_run_time_sec: 60',
    '    env:',
    `      ${KEY_VAR[kind]}: env:${KEY_VAR[kind]}`,
    `      FAKE_CLI_LOG: ${log}`,
    extra,
  ].join('\n');
}

async function run(task: TaskSpec, llm: ScriptedLlm, host: Record<string, string>, cwd: string) {
  const redactor = new Redactor();
  redactor.addFromEnv(host);
  const { logger, lines } = createMemoryLogger({ level: 'info', redactor });
  const result = await runAgentRunnerTask(task, {
    llm,
    shell: new ExecaShell(),
    clock: systemClock,
    logger,
    redactor,
    hostEnv: host,
    cwd,
    settings: { sandbox: 'auto', killAfterMs: 200 },
  });
  return { result, lines };
}

describe('agent-runner with the fake codex, claude and gemini CLIs', () => {
  for (const kind of ['codex-cli', 'claude-code', 'gemini-cli'] as const) {
    it(`A5/N1 a Task YAML run completes through ${kind}; the Task Note lists the meta calls and worker runs`, async () => {
      const repo = await tempDir('repo');
      const log = path.join(await tempDir('log'), 'calls.jsonl');
      const host = hostEnv(await tempDir('home'), { [KEY_VAR[kind]]: KEY_VALUE, CI: 'true' });
      const task = parseTaskYaml(taskYaml(kind, log), 'task.yaml', host);
      const llm = new ScriptedLlm([
        reply.plan('a greeting file exists'),
        reply.runWorker('Create a greeting file.', kind),
        reply.assess(true, ['AC-1']),
      ]);

      const { result, lines } = await run(task, llm, host, repo);

      llm.assertAllUsed();
      expect(result.error).to.equal(undefined);
      expect(result.state).to.equal('COMPLETE');
      expect(result.exitCode).to.equal(0);
      const written = await readFile(path.join(repo, `fake-${CLI[kind]}.txt`), 'utf8');
      expect(written.trim()).to.equal('Create a greeting file.');
      const [call] = await fakeCalls(log);
      expect(call!.env[KEY_VAR[kind]]).to.equal(KEY_VALUE);
      for (const name of Object.keys(HOST_SECRETS)) expect(call!.env).not.to.have.property(name);

      const note = await readFile(result.taskNotePath, 'utf8');
      expect(result.taskNotePath).to.equal(path.join(repo, '.mr-agent', `task-TASK-${kind}.md`));
      expect(note).to.contain(`# Task Note - TASK-${kind} - Greeting file`);
      expect(note).to.contain('- State: COMPLETE');
      expect(note).to.contain('- [x] AC-1: a greeting file exists');
      expect(note).to.match(/#### plan_task at \d{4}-\d\d-\d\dT/);
      expect(note).to.match(/#### next_action at /);
      expect(note).to.match(/#### completion_assessment at /);
      expect(note).to.match(/#### Run [0-9a-f-]{36} \(ExitCode=0\) at \S+ - \S+/);
      expect(note).to.contain(`- Worker: ${kind}`);
      expect(note).to.contain(`- Summary: `);
      expect(note).to.contain(`fake-${CLI[kind]}.txt`);
      expect(note).to.contain('Tests were not run automatically.');
      expect(note).not.to.contain(KEY_VALUE);
      expect(lines.join('\n')).not.to.contain(KEY_VALUE);
    });
  }

  it('N1 a worker that exits non-zero is recorded and reported to the meta-agent; max_loops ends the task', async () => {
    const repo = await tempDir('repo');
    const log = path.join(await tempDir('log'), 'calls.jsonl');
    const host = hostEnv(await tempDir('home'), { CODEX_API_KEY: KEY_VALUE });
    const task = parseTaskYaml(
      taskYaml('codex-cli', log, '      FAKE_CLI_SCENARIO: fail').replace(
        'max_loops: 2',
        'max_loops: 1',
      ),
      'task.yaml',
      host,
    );
    const llm = new ScriptedLlm([
      reply.plan('a greeting file exists'),
      reply.runWorker('Create a greeting file.', 'codex-cli'),
      reply.assess(false, []),
      reply.runWorker('Try again, the service failed.', 'codex-cli'),
      reply.assess(false, [], ['the worker keeps failing']),
    ]);

    const { result } = await run(task, llm, host, repo);

    llm.assertAllUsed();
    expect(result.state).to.equal('FAILED');
    expect(result.error).to.be.instanceOf(LimitReachedError);
    expect(result.context.workerRuns.map((r) => r.exitCode)).to.deep.equal([1, 1]);
    expect(llm.requests[3]!.messages[1]!.content).to.contain('"exit_code": 1');
    expect(llm.requests[3]!.messages[1]!.content).to.contain('codex reported: stream disconnected');
    const note = await readFile(result.taskNotePath, 'utf8');
    expect(note.match(/\(ExitCode=1\)/g)).to.have.length(2);
    expect(note).to.contain('- Error: codex reported: stream disconnected before completion');
  });

  it('N1 a worker over max_run_time_sec is stopped (SIGTERM, then SIGKILL) and fails the task', async () => {
    const repo = await tempDir('repo');
    const log = path.join(await tempDir('log'), 'calls.jsonl');
    const host = hostEnv(await tempDir('home'), { ANTHROPIC_API_KEY: KEY_VALUE });
    const parsed = parseTaskYaml(
      taskYaml('claude-code', log, '      FAKE_CLI_SCENARIO: hang-ignore-term'),
      'task.yaml',
      host,
    );
    const task = { ...parsed, worker: { ...parsed.worker, maxRunTimeSec: 0.5 } };
    const llm = new ScriptedLlm([reply.plan('x'), reply.runWorker('Create it.', 'claude-code')]);

    const { result } = await run(task, llm, host, repo);

    llm.assertAllUsed();
    expect(result.state).to.equal('FAILED');
    expect(result.exitCode).to.equal(1);
    expect(result.error).to.be.instanceOf(LimitReachedError);
    expect((result.error as Error).message).to.equal(
      'the claude-code worker timed out after 0.5 s',
    );
    const [run1] = result.context.workerRuns;
    expect(run1!.signal).to.equal('SIGKILL');
    const note = await readFile(result.taskNotePath, 'utf8');
    expect(note).to.contain('(ExitCode=none)');
    expect(note).to.contain('- Error: timed out after 0.5 s (max_run_time_sec)');
  });

  it('N1 a missing CLI fails the task in PLANNING with a ConfigError naming it, before any LLM call', async () => {
    const repo = await tempDir('repo');
    const log = path.join(await tempDir('log'), 'calls.jsonl');
    const host = {
      ...hostEnv(await tempDir('home'), { GEMINI_API_KEY: KEY_VALUE }),
      PATH: '/usr/bin:/bin',
    };
    const task = parseTaskYaml(taskYaml('gemini-cli', log), 'task.yaml', host);
    const llm = new ScriptedLlm([]);

    const { result, lines } = await run(task, llm, host, repo);

    expect(llm.requests).to.deep.equal([]);
    expect(result.state).to.equal('FAILED');
    expect(result.exitCode).to.equal(2);
    expect(result.error).to.be.instanceOf(ConfigError);
    expect((result.error as Error).message).to.equal(
      'the gemini-cli worker needs `gemini`, which is not on PATH',
    );
    const note = await readFile(result.taskNotePath, 'utf8');
    expect(note).to.contain('npm install -g @google/gemini-cli');
    expect(lines.filter((l) => l.includes('state transition')).length).to.equal(2);
  });

  it('N1 a missing credential fails the task with a ConfigError saying how to provide it', async () => {
    const repo = await tempDir('repo');
    const host = hostEnv(await tempDir('home'), { CODEX_API_KEY: 'only-on-the-host' });
    const task = parseTaskYaml(
      [
        'version: 1',
        'task:',
        '  prd: { text: x }',
        'runner:',
        '  worker: { kind: codex-cli }',
      ].join('\n'),
      'task.yaml',
      host,
    );

    const { result } = await run(task, new ScriptedLlm([]), host, repo);

    expect(result.state).to.equal('FAILED');
    expect(result.error).to.be.instanceOf(ConfigError);
    expect((result.error as ConfigError).hint).to.contain('CODEX_API_KEY: env:CODEX_API_KEY');
  });
});
