import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import {
  startScriptedOpenAiServer,
  type ScriptedOpenAiServer,
} from '../../src/testkit/openai-server/server.ts';
import { makeTempRepo } from '../support/temp-repo.ts';
import { runCli } from './helpers.ts';

/** What a newcomer sees when `mr-agent run` is given something wrong (A5, K1). */
describe('cli: mr-agent run tells what was wrong, where, and what to do (A5, K1)', () => {
  let server: ScriptedOpenAiServer | undefined;
  let repo: Awaited<ReturnType<typeof makeTempRepo>> | undefined;
  afterEach(async () => {
    await server?.close();
    await repo?.cleanup();
    server = undefined;
    repo = undefined;
  });

  it('A5 a blank --task is a usage error naming --task, before any model call', async () => {
    repo = await makeTempRepo({}, { git: false });

    const { code, stderr } = await runCli(['run', '--task', '   ', '--repo', repo.dir]);

    expect(code).to.equal(2);
    expect(stderr).to.contain('mr-agent: --task: the task is empty');
    expect(stderr).to.contain('hint: say what to do');
  });

  it('A5 --repo naming a file says it is not a folder; a relative path names the folder it was resolved from', async () => {
    repo = await makeTempRepo({ 'package.json': '{}\n' }, { git: false });

    const file = await runCli(['run', '--task', 'x', '--repo', 'package.json'], { cwd: repo.dir });
    const missing = await runCli(['run', '--task', 'x', '--repo', '../my-project'], {
      cwd: repo.dir,
    });

    expect(file.code).to.equal(2);
    expect(file.stderr).to.contain('--repo package.json: the repository is not a folder');
    expect(missing.code).to.equal(2);
    expect(missing.stderr).to.contain('--repo ../my-project: the repository folder does not exist');
    expect(missing.stderr).to.contain(`a relative path is resolved from ${repo.dir}`);
  });

  it('J1 a state folder that is a file is a configuration error naming state.directory, not an internal error', async () => {
    repo = await makeTempRepo({ 'state-file': 'x\n' }, { git: false });

    const { code, stderr } = await runCli(
      ['run', '--task', 'x', '--repo', repo.dir, '--set', 'state.directory=state-file'],
      { env: { OPENAI_API_KEY: 'sk-x' } },
    );

    expect(code).to.equal(2);
    expect(stderr).to.contain('mr-agent: state.directory: cannot use');
    expect(stderr).not.to.contain('internal error');
  });

  it('J1 a prompts.directory that does not exist is refused before the run', async () => {
    repo = await makeTempRepo({}, { git: false });

    const { code, stderr } = await runCli(
      ['run', '--task', 'x', '--repo', repo.dir, '--set', 'prompts.directory=my-prompts'],
      { cwd: repo.dir, env: { OPENAI_API_KEY: 'sk-x' } },
    );

    expect(code).to.equal(2);
    expect(stderr).to.contain(
      'mr-agent: prompts.directory: the prompts folder my-prompts does not exist',
    );
    expect(stderr).to.contain(`relative paths are resolved from ${repo.dir}`);
  });

  it('K1 a refused API key ends the run with the endpoint hint, and paths outside the working folder are absolute', async () => {
    repo = await makeTempRepo({}, { git: false });
    server = await startScriptedOpenAiServer({ apiKey: 'sk-right', scenario: { replies: [] } });
    const elsewhere = path.join(path.dirname(repo.dir), 'elsewhere');
    await mkdir(elsewhere);

    const { code, stdout } = await runCli(['run', '--task', 'x', '--repo', repo.dir], {
      cwd: elsewhere,
      env: {
        PATH: process.env.PATH ?? '',
        OPENAI_API_KEY: 'sk-wrong',
        OPENAI_BASE_URL: server.url,
        MR_AGENT_LLM_MODEL: 'scripted-model',
        MR_AGENT_ENVIRONMENT_SETUP: 'false',
      },
    });

    expect(code).to.equal(1);
    expect(stdout).to.match(/mr-agent: FAILED \(error\) — .*refused \(401\)/);
    expect(stdout).to.contain(
      'hint: Check the API key in the variable named by `llm.api_key_variable`.',
    );
    expect(stdout).to.contain(`Task Note: ${path.join(repo.dir, '.mr-agent', 'task-')}`);
  });

  it('K1 --json carries the hint of a failed run', async () => {
    repo = await makeTempRepo({}, { git: false });
    server = await startScriptedOpenAiServer({ apiKey: 'sk-right', scenario: { replies: [] } });

    const { code, stdout } = await runCli(['run', '--task', 'x', '--json'], {
      cwd: repo.dir,
      env: {
        PATH: process.env.PATH ?? '',
        OPENAI_API_KEY: 'sk-wrong',
        OPENAI_BASE_URL: server.url,
        MR_AGENT_LLM_MODEL: 'scripted-model',
        MR_AGENT_ENVIRONMENT_SETUP: 'false',
      },
    });

    expect(code).to.equal(1);
    const line = stdout.trim().split('\n').pop() ?? '';
    const result = JSON.parse(line) as Record<string, unknown>;
    expect(result).to.include({ ok: false, state: 'FAILED', exit_code: 1 });
    expect(result['hint']).to.match(/llm\.api_key_variable/);
    expect(result['task_note']).to.match(/^\.mr-agent\/task-/);
  });

  it('A5 AgentRunner mode ends with what failed, the hint and the Task Note (not only a log line)', async () => {
    repo = await makeTempRepo({}, { git: false });
    const task =
      'version: 1\ntask:\n  prd:\n    text: Add retries\nrunner:\n  worker:\n    kind: codex-cli\n';

    const { code, stdout } = await runCli(['run', '--repo', repo.dir], {
      stdin: task,
      env: {
        PATH: path.join(repo.dir, 'no-bin'),
        OPENAI_API_KEY: 'sk-x',
        CODEX_API_KEY: 'sk-codex',
      },
    });

    expect(code).to.equal(2);
    expect(stdout).to.contain(
      'mr-agent: FAILED — runner.worker.kind: the codex-cli worker needs `codex`, which is not on PATH',
    );
    expect(stdout).to.match(/\nhint: install it/);
    expect(stdout).to.contain(`Task Note: ${path.join(repo.dir, '.mr-agent', 'task-')}`);
  });
});
