import { expect } from 'chai';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runCli } from './helpers.ts';

async function repoWith(config: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'mr-agent-cli-'));
  await writeFile(path.join(dir, '.mr-agent.yml'), config);
  return dir;
}

describe('cli/main', () => {
  it('--help lists every sub-command and exits 0', async () => {
    const { code, stdout } = await runCli(['--help']);

    expect(code).to.equal(0);
    for (const command of ['run', 'ci', 'serve', 'demo', 'detect', 'config'])
      expect(stdout).to.contain(command);
  });

  it('A5 run --help names the variables of the model and shows examples; serve --help the variables it needs', async () => {
    const run = await runCli(['run', '--help']);
    const serve = await runCli(['serve', '--help']);
    const top = await runCli(['--help']);

    expect(run.code).to.equal(0);
    for (const text of [
      'OPENAI_API_KEY',
      'MR_AGENT_LLM_BASE_URL',
      'MR_AGENT_LLM_MODEL',
      'Examples:',
    ])
      expect(run.stdout).to.contain(text);
    for (const name of ['MR_AGENT_GITLAB_URL', 'MR_AGENT_GITLAB_TOKEN', 'MR_AGENT_WEBHOOK_SECRET'])
      expect(serve.stdout).to.contain(name);
    expect(top.stdout).to.contain('Exit codes: 0 success, 1 the run failed, 2 usage');
  });

  it('--version prints the package version', async () => {
    const { code, stdout } = await runCli(['--version']);

    expect(code).to.equal(0);
    expect(stdout.trim()).to.match(/^\d+\.\d+\.\d+/);
  });

  it('an unknown command exits 2 with a message', async () => {
    const { code, stderr } = await runCli(['frobnicate']);

    expect(code).to.equal(2);
    expect(stderr).to.contain("unknown command 'frobnicate'");
  });

  it('config check exits 2 naming file, key path and expectation for a wrong type', async () => {
    const cwd = await repoWith('planning:\n  reflection:\n    trigger_interval: three\n');

    const { code, stderr } = await runCli(['config', 'check'], { cwd });

    expect(code).to.equal(2);
    expect(stderr).to.contain(
      '.mr-agent.yml: planning.reflection.trigger_interval: expected a whole number >= 0, got "three"',
    );
    expect(stderr.split('\n')[0]).to.equal('mr-agent: invalid configuration (1 problem)');
  });

  it('config check --json shows REFLECTION_INTERVAL=5 with source env, and a flag beats it', async () => {
    const cwd = await repoWith('');

    const fromEnv = await runCli(['config', 'check', '--json'], {
      cwd,
      env: { REFLECTION_INTERVAL: '5' },
    });
    const fromFlag = await runCli(
      ['config', 'check', '--json', '--set', 'planning.reflection.trigger_interval=9'],
      {
        cwd,
        env: { REFLECTION_INTERVAL: '5' },
      },
    );

    type Entry = { key: string; value: unknown; source: string };
    const find = (out: string) =>
      (JSON.parse(out) as { options: Entry[] }).options.find(
        (o) => o.key === 'planning.reflection.trigger_interval',
      );
    expect(fromEnv.code).to.equal(0);
    expect(find(fromEnv.stdout)).to.deep.include({ value: 5, source: 'env' });
    expect(find(fromFlag.stdout)).to.deep.include({ value: 9, source: 'flag' });
  });

  it('config check never prints a secret value', async () => {
    const cwd = await repoWith('');

    const { code, stdout } = await runCli(['config', 'check'], {
      cwd,
      env: { MR_AGENT_GITLAB_TOKEN: 'glpat-supersecret-1' },
    });

    expect(code).to.equal(0);
    expect(stdout).not.to.contain('glpat-supersecret-1');
    expect(stdout).to.match(/gitlab\.token\s+"\(set\)"/);
  });

  it('config check --json reports problems as JSON with exit 2', async () => {
    const cwd = await repoWith('planning: { strategy: 3 }\n');

    const { code, stdout } = await runCli(['config', 'check', '--json'], { cwd });

    expect(code).to.equal(2);
    expect(JSON.parse(stdout)).to.deep.include({ ok: false, exit_code: 2 });
  });

  it('A5 run validates its Task YAML from stdin before anything else', async () => {
    const { code, stderr } = await runCli(['run'], { stdin: 'task:\n  title: no version\n' });

    expect(code).to.equal(2);
    expect(stderr).to.contain('<stdin>: version: expected version: 1');
  });

  it('A5 run without any task says how to give one', async () => {
    const { code, stderr } = await runCli(['run']);

    expect(code).to.equal(2);
    expect(stderr).to.contain('no task given');
    expect(stderr).to.contain('--task');
  });
});
