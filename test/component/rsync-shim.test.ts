import { expect } from 'chai';
import { execa } from 'execa';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gitlabCiLocalPath, RSYNC_SHIM } from './harness.ts';

/**
 * The rsync stand-in the component tests put on PATH (#21: `npm test` on a machine
 * without rsync), on the command lines gitlab-ci-local runs.
 */
function tree(root: string, files: Record<string, string>): void {
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
}

async function rsync(cwd: string, command: string) {
  return execa('bash', ['-c', command], {
    cwd,
    reject: false,
    env: { PATH: `${path.dirname(RSYNC_SHIM)}:${process.env.PATH}` },
  });
}

describe('component test support: the rsync stand-in (#21)', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'rsync-shim-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("copies the project like gitlab-ci-local's tracked-files sync: excludes, --delete and --delete-excluded", async () => {
    tree(root, {
      'src/a.js': 'a',
      'src/deep/b.js': 'b',
      'untracked.txt': 'u',
      'node_modules/x/index.js': 'x',
      '.gitlab-ci-local/state.txt': 's',
      '.gitlab-ci-local/builds/.docker/stale.txt': 'old',
      '.gitlab-ci-local/builds/.docker/untracked.txt': 'old copy',
    });
    writeFileSync(path.join(root, 'exclude'), '/untracked.txt\n/node_modules/\n');
    symlinkSync('src/a.js', path.join(root, 'link.js'));

    const result = await rsync(
      root,
      'rsync -a --delete-excluded --delete --exclude-from=exclude --exclude .git/lfs --exclude .gitlab-ci-local/ ./ .gitlab-ci-local/builds/.docker/',
    );

    const out = path.join(root, '.gitlab-ci-local/builds/.docker');
    expect(result.exitCode, result.stderr).to.equal(0);
    expect(readFileSync(path.join(out, 'src/deep/b.js'), 'utf8')).to.equal('b');
    expect(readlinkSync(path.join(out, 'link.js'))).to.equal('src/a.js');
    for (const gone of ['stale.txt', 'untracked.txt', 'node_modules', '.gitlab-ci-local']) {
      expect(existsSync(path.join(out, gone)), gone).to.equal(false);
    }
  });

  it('keeps file modes and copies -R paths relative to the `./` they start from', async () => {
    tree(root, { 'bin/run.sh': '#!/bin/sh\n', '.mr-agent-cache/pip/wheel': 'w' });
    await execa('chmod', ['755', path.join(root, 'bin/run.sh')]);

    const result = await rsync(root, 'rsync -Ra ./bin ./.mr-agent-cache/pip cache/k/.');

    expect(result.exitCode, result.stderr).to.equal(0);
    expect(lstatSync(path.join(root, 'cache/k/bin/run.sh')).mode & 0o777).to.equal(0o755);
    expect(readFileSync(path.join(root, 'cache/k/.mr-agent-cache/pip/wheel'), 'utf8')).to.equal(
      'w',
    );
  });

  it('copies a --files-from list recursively, leaving out excluded paths, and exits 23 for a missing one', async () => {
    tree(root, {
      '.mr-agent/result.json': '{}',
      '.mr-agent/history/run.jsonl': '{}',
      '.gitlab-ci-local/x': 'x',
    });
    writeFileSync(path.join(root, 'list'), './.mr-agent\n./.gitlab-ci-local/x\n');

    const ok = await rsync(
      root,
      "rsync --exclude '.gitlab-ci-local/**' -rRa --files-from=list . out/.",
    );
    const missing = await rsync(root, 'rsync -Ra ./nothing-here out/.');

    expect(ok.exitCode, ok.stderr).to.equal(0);
    expect(existsSync(path.join(root, 'out/.mr-agent/history/run.jsonl'))).to.equal(true);
    expect(existsSync(path.join(root, 'out/.gitlab-ci-local/x'))).to.equal(false);
    expect(missing.exitCode).to.equal(23);
    expect(missing.stderr).to.contain('No such file or directory');
  });

  it('#21 gitlab-ci-local finds the stand-in first, whether or not the machine has rsync', async () => {
    const found = await execa('sh', ['-c', 'command -v rsync'], {
      env: { PATH: gitlabCiLocalPath() },
    });

    expect(found.stdout.trim()).to.equal(RSYNC_SHIM);
  });
});
