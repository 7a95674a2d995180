import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

describe('cli/bundle', function () {
  this.timeout(120_000);

  it('the bundle dist/mr-agent.mjs runs on its own, without node_modules, and lists the sub-commands', () => {
    execFileSync('npm', ['run', '--silent', 'build'], { stdio: 'pipe' });
    const dir = mkdtempSync(path.join(os.tmpdir(), 'mr-agent-bundle-'));
    copyFileSync('dist/mr-agent.mjs', path.join(dir, 'mr-agent.mjs'));

    const help = execFileSync(process.execPath, [path.join(dir, 'mr-agent.mjs'), '--help'], {
      cwd: dir,
      encoding: 'utf8',
    });

    for (const command of ['run', 'ci', 'serve', 'demo', 'detect', 'config'])
      expect(help).to.contain(command);
    expect(process.versions.node.split('.')[0]).to.equal('24');
  });
});
