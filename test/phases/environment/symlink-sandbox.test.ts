import { expect } from 'chai';
import { shellCheckout } from '../../../src/shell/checkout-port.ts';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createMemoryLogger } from '../../../src/log/logger.ts';
import { Redactor } from '../../../src/log/redact.ts';
import { workingDiff } from '../../../src/phases/review/diff.ts';
import { detectEnvironment } from '../../../src/phases/environment/detect-environment.ts';
import { ExecaShell } from '../../../src/shell/execa-shell.ts';

const CANARY = 'canary-9f3e71';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
    cwd,
    encoding: 'utf8',
  });

/**
 * Detection reads through the path sandbox (issue 19 §5): a committed file
 * that is a symbolic link out of the checkout is never read, so its target's
 * text reaches neither the detection output, nor the verification commands,
 * nor (through them) the planning prompt.
 */
describe('phases/environment: detection reads through the sandbox (issue 19 §5)', () => {
  let work: string;
  let repo: string;
  let outside: string;

  beforeEach(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'detect-symlink-'));
    repo = path.join(work, 'repo');
    outside = path.join(work, 'outside');
    await mkdir(repo);
    await mkdir(outside);
    await writeFile(path.join(outside, 'version'), `3.12.1\n# ${CANARY}-version\n`);
    await writeFile(path.join(outside, 'requirements'), `${CANARY}-package==1.0\n`);
    await writeFile(
      path.join(outside, 'package.json'),
      JSON.stringify({ name: 'x', scripts: { test: `echo ${CANARY}-test` } }),
    );
    await writeFile(path.join(repo, 'app.py'), 'print(1)\n');
    await symlink(path.join(outside, 'version'), path.join(repo, '.python-version'));
    await symlink(path.join(outside, 'requirements'), path.join(repo, 'requirements.txt'));
    await mkdir(path.join(repo, 'web'));
    await symlink('../../outside/package.json', path.join(repo, 'web', 'package.json'));
    git(repo, 'init', '-q');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-qm', 'links');
  });
  afterEach(() => rm(work, { recursive: true, force: true }));

  it('the review of a folder outside git does not show a changed file that links out of it (issue 19 §3)', async () => {
    const plain = path.join(work, 'plain');
    await mkdir(plain);
    await writeFile(path.join(plain, 'ok.txt'), 'fine\n');
    await symlink(path.join(outside, 'requirements'), path.join(plain, 'leak.txt'));
    const redactor = new Redactor();
    const { logger } = createMemoryLogger({ redactor, level: 'debug', format: 'json' });
    const diff = await workingDiff({
      checkout: shellCheckout,
      shell: new ExecaShell(),
      repoDir: plain,
      stateDir: '.mr-agent',
      hostEnv: process.env,
      redactor,
      logger,
      maxChars: 10_000,
      changedFiles: ['ok.txt', 'leak.txt'],
    });
    expect(diff.git).to.equal(false);
    expect(diff.text).to.contain('fine').and.not.contain(CANARY);
  });

  for (const listing of ['auto', 'walk'] as const) {
    it(`a symlinked .python-version stays unread (listing: ${listing}) (issue 19 §3)`, async () => {
      const detection = await detectEnvironment(repo, { listing });
      // detected files, versions, dependencies, setup and verification commands, evidence
      expect(JSON.stringify(detection)).not.to.contain(CANARY);
    });
  }
});
