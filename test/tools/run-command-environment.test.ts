import { expect } from 'chai';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { inEnvironment } from '../../src/shell/in-environment.ts';
import { makeTempRepo } from '../support/temp-repo.ts';
import { toolContext } from '../support/tool-context.ts';
import { call } from './call.ts';

describe('tools: run_command inside the selected environment (issue 17 item 4)', () => {
  let repo: Awaited<ReturnType<typeof makeTempRepo>>;
  beforeEach(async () => {
    repo = await makeTempRepo({ 'a.txt': 'a\n' });
  });
  afterEach(() => repo.cleanup());

  it('issue 17 item 4: with a conda runner the command line runs as `conda run -n X --no-capture-output sh -c <command>`', async () => {
    const bin = path.join(path.dirname(repo.dir), 'bin');
    const log = path.join(path.dirname(repo.dir), 'argv.log');
    await mkdir(bin);
    await writeFile(
      path.join(bin, 'conda'),
      `#!/bin/sh\nfor a in "$@"; do printf '[%s]' "$a" >> ${log}; done\nshift 4\nexec "$@"\n`,
      { mode: 0o755 },
    );
    const ctx = await toolContext(repo.dir, {
      hostEnv: { PATH: `${bin}:${process.env.PATH}`, MR_AGENT_GITLAB_TOKEN: 'glpat-secret' },
      environment: {
        wrap: ['conda', 'run', '-n', 'demo', '--no-capture-output'],
        path: [],
        env: {},
        description: 'conda',
      },
    });

    const out = await call(ctx, 'run_command', {
      command: `echo "it's $((6 * 7))" && env`,
    });

    expect(out.ok, out.output).to.equal(true);
    expect(await readFile(log, 'utf8')).to.equal(
      `[run][-n][demo][--no-capture-output][sh][-c][echo "it's $((6 * 7))" && env]`,
    );
    expect(out.output).to.contain("it's 42");
    expect(out.output).not.to.contain('glpat-secret');
  });

  it('issue 17 item 4: with a virtualenv runner its bin comes first on PATH and VIRTUAL_ENV is set', async () => {
    const venv = path.join(repo.dir, '.venv');
    await mkdir(path.join(venv, 'bin'), { recursive: true });
    await writeFile(path.join(venv, 'bin', 'python'), '#!/bin/sh\necho "venv python $*"\n', {
      mode: 0o755,
    });
    const ctx = await toolContext(repo.dir, {
      environment: {
        wrap: [],
        path: [path.join(venv, 'bin')],
        env: { VIRTUAL_ENV: venv },
        description: 'venv',
      },
    });

    const out = await call(ctx, 'run_command', { command: 'python -V; echo "$VIRTUAL_ENV"' });

    expect(out.output).to.contain('venv python -V');
    expect(out.output).to.contain(venv);
  });

  it('without a runner the command runs as it is, in the sandbox environment', () => {
    const plain = inEnvironment('ls -la', { PATH: '/usr/bin', CI_JOB_TOKEN: 'x' }, undefined);
    expect(plain).to.deep.equal({ command: 'ls -la', env: { PATH: '/usr/bin', CI: 'true' } });
    const venv = inEnvironment(
      'pytest',
      { PATH: '/usr/bin' },
      { wrap: [], path: ['/r/.venv/bin'], env: { VIRTUAL_ENV: '/r/.venv' }, description: '' },
    );
    expect(venv.env).to.deep.include({ PATH: '/r/.venv/bin:/usr/bin', VIRTUAL_ENV: '/r/.venv' });
    expect(venv.command).to.equal('pytest');
  });
});
