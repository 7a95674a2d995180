import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BUILD_OUTPUTS, ensureBuilt } from '../support/cli-bundle.ts';

describe('cli/bundle', function () {
  this.timeout(120_000);

  it('`npm run build` writes the bundle dist/mr-agent.mjs with its chunks, which run on their own, without node_modules, and list the sub-commands', () => {
    // builds unless dist/ is already newer than src/, scripts/ and the configs
    ensureBuilt();
    for (const output of BUILD_OUTPUTS) expect(existsSync(output), output).to.equal(true);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'mr-agent-bundle-'));
    copyFileSync('dist/mr-agent.mjs', path.join(dir, 'mr-agent.mjs'));
    cpSync('dist/chunks', path.join(dir, 'chunks'), { recursive: true });

    const help = execFileSync(process.execPath, [path.join(dir, 'mr-agent.mjs'), '--help'], {
      cwd: dir,
      encoding: 'utf8',
    });

    for (const command of ['run', 'ci', 'serve', 'demo', 'detect', 'config'])
      expect(help).to.contain(command);
    expect(process.versions.node.split('.')[0]).to.equal('24');
  });
});
