import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checkoutMergeRequest } from '../../src/ci/checkout.ts';
import { CommandFailedError } from '../../src/errors/errors.ts';
import { ExecaShell } from '../../src/shell/execa-shell.ts';

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.email=t@e', '-c', 'user.name=T', ...args], {
    cwd,
    encoding: 'utf8',
  }).trim();
}

describe('ci/checkout', () => {
  let root: string;
  let origin: string;
  let job: string;
  let mrHead: string;
  const env = { PATH: process.env.PATH ?? '', HOME: os.tmpdir() };

  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'mr-agent-checkout-'));
    origin = path.join(root, 'origin.git');
    const work = path.join(root, 'work');
    execFileSync('git', ['init', '-q', '--bare', '-b', 'main', origin]);
    execFileSync('git', ['clone', '-q', origin, work], { stdio: 'ignore' });
    writeFileSync(path.join(work, 'a.txt'), 'main\n');
    git(work, 'add', '-A');
    git(work, 'commit', '-qm', 'main');
    git(work, 'push', '-q', 'origin', 'HEAD:main');
    git(work, 'checkout', '-qb', 'feature/x');
    writeFileSync(path.join(work, 'a.txt'), 'feature\n');
    git(work, 'commit', '-qam', 'feature');
    mrHead = git(work, 'rev-parse', 'HEAD');
    // GitLab keeps the head of merge request !3 here (also for forks)
    git(work, 'push', '-q', 'origin', `HEAD:refs/merge-requests/3/head`);
    job = path.join(root, 'job');
    execFileSync('git', ['clone', '-q', '-b', 'main', origin, job]);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('A3 a pipeline on the default branch checks out the merge request head as its source branch', async () => {
    const result = await checkoutMergeRequest(new ExecaShell(), {
      projectDir: job,
      currentRef: 'main',
      mergeRequest: { iid: 3, sourceBranch: 'feature/x', isFork: false },
      env,
    });

    expect(result).to.deep.equal({ changed: true, branch: 'feature/x' });
    expect(git(job, 'rev-parse', 'HEAD')).to.equal(mrHead);
    expect(git(job, 'branch', '--show-current')).to.equal('feature/x');
  });

  it('A2 a pipeline already on the source branch is left as it is', async () => {
    const result = await checkoutMergeRequest(new ExecaShell(), {
      projectDir: job,
      currentRef: 'feature/x',
      mergeRequest: { iid: 3, sourceBranch: 'feature/x', isFork: false },
      env,
    });

    expect(result.changed).to.equal(false);
    expect(git(job, 'branch', '--show-current')).to.equal('main');
  });

  it('a fork merge request is fetched from the target project even when the branch names match', async () => {
    const result = await checkoutMergeRequest(new ExecaShell(), {
      projectDir: job,
      currentRef: 'main',
      mergeRequest: { iid: 3, sourceBranch: 'main', isFork: true },
      env,
    });

    expect(result.changed).to.equal(true);
    expect(git(job, 'rev-parse', 'HEAD')).to.equal(mrHead);
  });

  it('a merge request GitLab does not have fails with the git output', async () => {
    let error: unknown;
    try {
      await checkoutMergeRequest(new ExecaShell(), {
        projectDir: job,
        currentRef: 'main',
        mergeRequest: { iid: 99, sourceBranch: 'gone', isFork: false },
        env,
      });
    } catch (e) {
      error = e;
    }

    expect(error).to.be.instanceOf(CommandFailedError);
    expect((error as CommandFailedError).outputTail).to.contain('merge-requests/99/head');
  });

  it('a branch name is one argument to git, whatever the shell would make of it', async () => {
    git(root + '/work', 'push', '-q', 'origin', `HEAD:refs/merge-requests/4/head`);
    const result = await checkoutMergeRequest(new ExecaShell(), {
      projectDir: job,
      currentRef: 'main',
      mergeRequest: { iid: 4, sourceBranch: "it's;touch$IFS-pwned", isFork: false },
      env,
    });

    expect(result.changed).to.equal(true);
    expect(git(job, 'branch', '--show-current')).to.equal("it's;touch$IFS-pwned");
  });
});
