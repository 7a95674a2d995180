import { expect } from 'chai';
import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { cliBundle } from '../support/cli-bundle.ts';

describe('demo/bundle: the packaged layout runs the demo', function () {
  this.timeout(120_000);
  let pkg: string;

  before(async () => {
    // the bundle `npm run build --bundle-only` writes, built once per test process
    const bundle = await cliBundle();
    pkg = await mkdtemp(path.join(tmpdir(), 'mr-agent-pkg-'));
    await mkdir(path.join(pkg, 'dist'));
    await cp(bundle, path.join(pkg, 'dist/mr-agent.mjs'));
    await cp(path.join(path.dirname(bundle), 'chunks'), path.join(pkg, 'dist/chunks'), {
      recursive: true,
    });
    // what package.json `files` ships next to the bundle, without node_modules
    for (const folder of ['demo', 'prompts'])
      await cp(folder, path.join(pkg, folder), { recursive: true });
  });
  after(() => rm(pkg, { recursive: true, force: true }));

  it('A7: `mr-agent demo` from the bundle finds the sample repository and the scenario, and exits 0', async () => {
    const run = await execa(process.execPath, [path.join(pkg, 'dist/mr-agent.mjs'), 'demo'], {
      cwd: pkg,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
      extendEnv: false,
      reject: false,
    });
    expect(run.exitCode, `${run.stdout}\n${run.stderr}`).to.equal(0);
    expect(run.stdout).to.contain('✅ COMPLETE');
    expect(run.stdout).to.contain(path.join(pkg, 'demo', 'llm-scenario.yaml'));
    expect(run.stdout).to.match(/The temporary folder .* was removed/);
  });

  it('a bad --set stops the demo at once with exit code 2 and names the key', async () => {
    const run = await execa(
      process.execPath,
      [path.join(pkg, 'dist/mr-agent.mjs'), 'demo', '--set', 'delivery.push=maybe'],
      { cwd: pkg, reject: false },
    );
    expect(run.exitCode).to.equal(2);
    expect(run.stderr).to.contain('delivery.push');
  });
});
