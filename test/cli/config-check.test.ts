import { expect } from 'chai';
import { makeTempRepo } from '../support/temp-repo.ts';
import { runCli } from './helpers.ts';

describe('cli: mr-agent config check on the folder it is given (J1)', () => {
  let repo: Awaited<ReturnType<typeof makeTempRepo>> | undefined;
  afterEach(async () => {
    await repo?.cleanup();
    repo = undefined;
  });

  it('J1 a --repo that does not exist is a usage error, not a valid default configuration', async () => {
    repo = await makeTempRepo({}, { git: false });

    const { code, stdout, stderr } = await runCli(['config', 'check', '--repo', 'nope'], {
      cwd: repo.dir,
    });

    expect(code).to.equal(2);
    expect(stdout).not.to.contain('configuration is valid');
    expect(stderr).to.contain('mr-agent: --repo nope: not a folder');
    expect(stderr).to.contain(`a relative path is resolved from ${repo.dir}`);
  });

  it('J1 says when the folder has no .mr-agent.yml, so a misnamed file is noticed', async () => {
    repo = await makeTempRepo(
      { '.mr-agent.yaml': 'planning:\n  strategy: simple\n' },
      { git: false },
    );

    const { code, stdout } = await runCli(['config', 'check', '--repo', repo.dir]);

    expect(code).to.equal(0);
    expect(stdout).to.contain(
      `(no .mr-agent.yml in ${repo.dir}: defaults, environment and --set only)`,
    );
    expect(stdout).to.match(/planning\.strategy\s+"chain_of_thought"\s+\(default\)/);
  });

  it('J1 a typo in .mr-agent.yml names the file, the key and the option meant (exit 2)', async () => {
    repo = await makeTempRepo(
      { '.mr-agent.yml': 'planning:\n  stratgy: simple\n' },
      { git: false },
    );

    const { code, stderr } = await runCli(['config', 'check', '--repo', repo.dir]);

    expect(code).to.equal(2);
    expect(stderr).to.contain(
      '.mr-agent.yml: planning.stratgy: unknown option (did you mean planning.strategy?)',
    );
  });
});
