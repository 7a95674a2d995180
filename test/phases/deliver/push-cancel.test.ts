import { expect } from 'chai';
import { shellCheckout } from '../../../src/shell/checkout-port.ts';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CancelledError } from '../../../src/errors/errors.ts';
import { createMemoryLogger } from '../../../src/log/logger.ts';
import { Redactor } from '../../../src/log/redact.ts';
import { deliveryGit } from '../../../src/phases/deliver/git.ts';
import { pushWithOneRebase } from '../../../src/phases/deliver/push.ts';
import { ExecaShell } from '../../../src/shell/execa-shell.ts';

const IDENTITY = { name: 'mr-agent', email: 'agent@example.com' };

function sh(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
    cwd,
    encoding: 'utf8',
  }).trim();
}

/**
 * No push starts after a termination signal (SPEC M6, O4): the run's abort
 * signal is checked right before each `git push` is spawned — also when the
 * signal arrives after the branch check (while HEAD is read) or during the
 * fetch and rebase before a second push. Real git, a local bare remote.
 */
describe('deliver: no push after the job is cancelled (M6)', function () {
  this.timeout(20_000);
  let root: string;
  let bare: string;
  let work: string;

  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'mr-agent-push-cancel-'));
    bare = path.join(root, 'remote.git');
    work = path.join(root, 'work');
    execFileSync('git', ['init', '-q', '--bare', '-b', 'main', bare]);
    execFileSync('git', ['clone', '-q', bare, work], { stdio: 'ignore' });
    await writeFile(path.join(work, 'a.txt'), 'one\n');
    sh(work, 'add', 'a.txt');
    sh(work, 'commit', '-qm', 'one');
    sh(work, 'push', '-q', 'origin', 'HEAD:refs/heads/main');
    await writeFile(path.join(work, 'a.txt'), 'two\n');
    sh(work, 'commit', '-qam', 'two');
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  /** A delivery git whose `run` lets the test act when a given git command starts. */
  function gitAborting(controller: AbortController, when: (args: readonly string[]) => boolean) {
    const redactor = new Redactor();
    const git = deliveryGit(shellCheckout, {
      shell: new ExecaShell(),
      cwd: work,
      hostEnv: { PATH: process.env.PATH },
      redactor,
      logger: createMemoryLogger({ redactor }).logger,
      remoteUrl: bare,
      identity: IDENTITY,
    });
    const pushes: string[][] = [];
    const run = git.run.bind(git);
    git.run = (args, ...rest) => {
      if (args[0] === 'push') pushes.push([...args]);
      const result = run(args, ...rest);
      if (when(args)) controller.abort(new CancelledError('received SIGTERM'));
      return result;
    };
    return { git, pushes, redactor };
  }

  const remoteMain = () => sh(bare, 'rev-parse', 'refs/heads/main');

  it('M6 a SIGTERM just after the branch check (while HEAD is read): no push is spawned', async () => {
    const before = remoteMain();
    const controller = new AbortController();
    const { git, pushes, redactor } = gitAborting(controller, (args) => args[0] === 'rev-parse');

    let error: unknown;
    await pushWithOneRebase(git, bare, 'main', redactor, controller.signal).catch(
      (e: unknown) => (error = e),
    );

    expect(error).to.be.instanceOf(CancelledError);
    expect(pushes).to.deep.equal([]);
    expect(remoteMain()).to.equal(before);
  });

  it('M6 a SIGTERM during the fetch before a second push (branch moved on): no second push', async () => {
    // somebody else pushed meanwhile: the first push is refused as non-fast-forward
    const other = path.join(root, 'other');
    execFileSync('git', ['clone', '-q', bare, other]);
    await writeFile(path.join(other, 'b.txt'), 'theirs\n');
    sh(other, 'add', 'b.txt');
    sh(other, 'commit', '-qm', 'theirs');
    sh(other, 'push', '-q', 'origin', 'HEAD:refs/heads/main');
    const before = remoteMain();
    const controller = new AbortController();
    const { git, pushes, redactor } = gitAborting(controller, (args) => args[0] === 'fetch');

    let error: unknown;
    await pushWithOneRebase(git, bare, 'main', redactor, controller.signal).catch(
      (e: unknown) => (error = e),
    );

    expect(error).to.be.instanceOf(CancelledError);
    expect(pushes).to.have.length(1);
    expect(remoteMain()).to.equal(before);
  });

  it('without a signal the change is pushed (the check stops nothing else)', async () => {
    const controller = new AbortController();
    const { git, pushes, redactor } = gitAborting(controller, () => false);
    const pushed = await pushWithOneRebase(git, bare, 'main', redactor, controller.signal);
    expect(pushes).to.have.length(1);
    expect(remoteMain()).to.equal(pushed.commit);
  });
});
