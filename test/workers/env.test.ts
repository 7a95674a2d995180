import { expect } from 'chai';
import { ConfigError } from '../../src/errors/errors.ts';
import { workerEnv } from '../../src/workers/env.ts';
import { resolveSandbox } from '../../src/workers/registry.ts';

describe('workers/env', () => {
  it('M1 a worker sees the minimal host allow-list plus exactly runner.worker.env', () => {
    const env = workerEnv(
      {
        PATH: '/bin',
        HOME: '/home/ci',
        LANG: 'C.UTF-8',
        LC_ALL: 'C',
        CI: 'true',
        OPENAI_API_KEY: 'sk-meta',
        CI_JOB_TOKEN: 'job',
        AWS_SECRET_ACCESS_KEY: 'aws',
        JAVA_HOME: '/opt/java',
        RANDOM_VAR: 'x',
      },
      { CODEX_API_KEY: 'codex-key', PATH: '/opt/tools:/bin' },
      { IS_SANDBOX: '1' },
    );

    expect(env).to.deep.equal({
      PATH: '/opt/tools:/bin',
      HOME: '/home/ci',
      LANG: 'C.UTF-8',
      LC_ALL: 'C',
      CI: 'true',
      IS_SANDBOX: '1',
      CODEX_API_KEY: 'codex-key',
    });
  });

  it('M1 refuses to pass a GitLab credential named in runner.worker.env', () => {
    let error: unknown;
    try {
      workerEnv({}, { CI_JOB_TOKEN: 'x', GEMINI_API_KEY: 'y', MR_AGENT_GITLAB_TOKEN: 'z' });
    } catch (caught) {
      error = caught;
    }

    expect(error).to.be.instanceOf(ConfigError);
    expect((error as ConfigError).problems).to.deep.equal([
      'runner.worker.env.CI_JOB_TOKEN: never passed to a worker',
      'runner.worker.env.MR_AGENT_GITLAB_TOKEN: never passed to a worker',
    ]);
  });

  it('sandbox policy: auto is the outer sandbox in CI and the CLI sandbox on a developer host', () => {
    expect(resolveSandbox('auto', { CI: 'true' })).to.equal('outer');
    expect(resolveSandbox('auto', { GITLAB_CI: 'true' })).to.equal('outer');
    expect(resolveSandbox('auto', {})).to.equal('cli');
    expect(resolveSandbox('cli', { CI: 'true' })).to.equal('cli');
    expect(resolveSandbox('outer', {})).to.equal('outer');
  });
});
