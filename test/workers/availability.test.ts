import { expect } from 'chai';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '../../src/errors/errors.ts';
import { describeError } from '../../src/errors/catalog.ts';
import { checkWorkerAvailable, findOnPath } from '../../src/workers/availability.ts';
import { workerEnv } from '../../src/workers/env.ts';
import { CLI_WORKERS } from '../../src/workers/registry.ts';
import { CREDENTIAL, FAKE_BIN, hostEnv, tempDir } from './helpers.ts';

async function rejection(promise: Promise<unknown>): Promise<ConfigError> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('workers/availability', () => {
  it('finds an executable on the PATH of the worker environment only', async () => {
    const dir = await tempDir('bin');
    await writeFile(path.join(dir, 'notexec'), 'x');
    await writeFile(path.join(dir, 'tool'), '#!/bin/sh\n');
    await chmod(path.join(dir, 'tool'), 0o755);

    expect(await findOnPath('tool', { PATH: `/nonexistent:${dir}` })).to.equal(
      path.join(dir, 'tool'),
    );
    expect(await findOnPath('notexec', { PATH: dir })).to.equal(undefined);
    expect(await findOnPath('codex', { PATH: dir })).to.equal(undefined);
    expect(await findOnPath('codex', { PATH: FAKE_BIN })).to.equal(path.join(FAKE_BIN, 'codex'));
  });

  for (const [kind, spec] of Object.entries(CLI_WORKERS)) {
    it(`N1 ${kind}: a missing CLI is a ConfigError naming the executable and how to install it`, async () => {
      const home = await tempDir('home');
      const env = workerEnv({ PATH: '/usr/bin:/bin', HOME: home }, CREDENTIAL[kind]!);

      const error = await rejection(checkWorkerAvailable(spec, env));

      expect(error.message).to.equal(
        `the ${kind} worker needs \`${spec.binary}\`, which is not on PATH`,
      );
      expect(error.hint).to.contain(spec.install);
      expect(describeError(error).details.join('\n')).to.contain('PATH=/usr/bin:/bin');
    });

    it(`N1 ${kind}: a missing credential is a ConfigError naming the variables and how to provide them`, async () => {
      const home = await tempDir('home');
      const env = workerEnv(hostEnv(home), {});

      const error = await rejection(checkWorkerAvailable(spec, env));

      expect(error.message).to.equal(`the ${kind} worker has no credential`);
      const name = Object.keys(CREDENTIAL[kind]!)[0]!;
      expect(error.problems[0]).to.contain(name);
      expect(error.hint).to.contain(`${name}: env:${name}`);
    });

    it(`N1 ${kind}: a credential variable in runner.worker.env makes it available`, async () => {
      const home = await tempDir('home');
      const env = workerEnv(hostEnv(home), CREDENTIAL[kind]!);

      const found = await checkWorkerAvailable(spec, env);

      expect(found.executable).to.equal(path.join(FAKE_BIN, spec.binary));
      expect(found.credential).to.equal(`env ${Object.keys(CREDENTIAL[kind]!)[0]}`);
    });
  }

  it('a host secret with the right name is not a credential unless the task passes it', async () => {
    const home = await tempDir('home');
    const env = workerEnv(hostEnv(home, { CODEX_API_KEY: 'host-only-key' }), {});

    await rejection(checkWorkerAvailable(CLI_WORKERS['codex-cli'], env));
  });

  it('a login file (codex auth.json under HOME or CODEX_HOME) counts as a credential', async () => {
    const home = await tempDir('home');
    await mkdir(path.join(home, '.codex'));
    await writeFile(path.join(home, '.codex', 'auth.json'), '{}');
    const codexHome = await tempDir('codex-home');
    await writeFile(path.join(codexHome, 'auth.json'), '{}');

    const fromHome = await checkWorkerAvailable(
      CLI_WORKERS['codex-cli'],
      workerEnv(hostEnv(home), {}),
    );
    const fromCodexHome = await checkWorkerAvailable(
      CLI_WORKERS['codex-cli'],
      workerEnv(hostEnv(await tempDir('home')), { CODEX_HOME: codexHome }),
    );

    expect(fromHome.credential).to.equal(`file ${path.join(home, '.codex', 'auth.json')}`);
    expect(fromCodexHome.credential).to.equal(`file ${path.join(codexHome, 'auth.json')}`);
  });

  it('gemini on Vertex AI needs both GOOGLE_GENAI_USE_VERTEXAI and GOOGLE_CLOUD_PROJECT', async () => {
    const home = await tempDir('home');
    const spec = CLI_WORKERS['gemini-cli'];

    await rejection(
      checkWorkerAvailable(spec, workerEnv(hostEnv(home), { GOOGLE_GENAI_USE_VERTEXAI: 'true' })),
    );
    const found = await checkWorkerAvailable(
      spec,
      workerEnv(hostEnv(home), { GOOGLE_GENAI_USE_VERTEXAI: 'true', GOOGLE_CLOUD_PROJECT: 'p' }),
    );
    expect(found.credential).to.equal('env GOOGLE_GENAI_USE_VERTEXAI + GOOGLE_CLOUD_PROJECT');
  });
});
