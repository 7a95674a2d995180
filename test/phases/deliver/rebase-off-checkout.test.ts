import { expect } from 'chai';
import { shellCheckout } from '../../../src/shell/checkout-port.ts';
import { execFileSync } from 'node:child_process';
import {
  chmod,
  chown,
  lstat,
  mkdir,
  mkdtemp,
  readFile,
  readdir,
  rename,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CommandFailedError } from '../../../src/errors/errors.ts';
import { createMemoryLogger } from '../../../src/log/logger.ts';
import { Redactor } from '../../../src/log/redact.ts';
import { deliver } from '../../../src/phases/deliver/deliver.ts';
import { deliveryGit as deliveryGitOf } from '../../../src/phases/deliver/git.ts';
import { pushWithOneRebase } from '../../../src/phases/deliver/push.ts';
import { ExecaShell } from '../../../src/shell/execa-shell.ts';
import { git, startDeliveryWorld, type DeliveryWorld } from './delivery-world.ts';

const IDENTITY = { name: 'mr-agent', email: 'agent@example.com' };
const isRoot = process.getuid?.() === 0;

/**
 * The one rebase after a rejected push (SPEC H3) never runs in the checkout
 * (issue 28): the checkout's files are the command user's, so the rebased
 * commit is built in the agent's object store alone and pushed from there.
 * Real git; the stand-in over HTTP, or a local bare remote.
 */
describe('deliver: the rebase after a rejected push stays out of the checkout (H3, M1)', function () {
  this.timeout(30_000);

  describe('over the stand-in', () => {
    let d: DeliveryWorld;
    beforeEach(async () => (d = await startDeliveryWorld()));
    afterEach(() => d.close());

    it('H3 a push rejected because the branch moved on is rebased and pushed; no file of the checkout is written', async () => {
      const dir = d.checkout('feature/greeting');
      const readmeBefore = await readFile(path.join(dir, 'README.md'), 'utf8');
      const upstream = await d.w.standIn.model.commit(d.w.s.project, 'feature/greeting', {
        'README.md': '# app\n\nChanged by a human.\n',
      });
      await writeFile(path.join(dir, 'NOTES.md'), 'agent\n');
      const headBefore = git(dir, 'rev-parse', 'HEAD');

      const result = await deliver(d.input(dir, await d.mrTarget()));

      expect(result).to.include({ status: 'pushed', rebased: true });
      const remote = git(d.w.s.project.repoDir, 'rev-parse', 'refs/heads/feature/greeting');
      expect(result.status === 'pushed' && result.commit).to.equal(remote);
      // one commit on top of the human's, with both changes, message and author kept
      expect(git(d.w.s.project.repoDir, 'rev-parse', `${remote}^`)).to.equal(upstream);
      expect(git(d.w.s.project.repoDir, 'show', `${remote}:NOTES.md`)).to.equal('agent');
      expect(git(d.w.s.project.repoDir, 'show', `${remote}:README.md`)).to.contain(
        'Changed by a human.',
      );
      expect(git(d.w.s.project.repoDir, 'log', '-1', '--format=%s|%an|%ae', remote)).to.equal(
        'Add notes|mr-agent|mr-agent@example.invalid',
      );
      // the checkout is as the run left it: git wrote none of the human's change into it
      expect(await readFile(path.join(dir, 'README.md'), 'utf8')).to.equal(readmeBefore);
      expect(git(dir, 'rev-parse', 'HEAD^')).to.equal(headBefore);
    });

    it('H3 a conflicting rebase is reported and the change kept (patch and its own branch); the checkout is untouched', async () => {
      const dir = d.checkout('feature/greeting');
      await d.w.standIn.model.commit(d.w.s.project, 'feature/greeting', { 'NOTES.md': 'human\n' });
      await writeFile(path.join(dir, 'NOTES.md'), 'agent\n');

      const result = await deliver(d.input(dir, await d.mrTarget()));

      expect(result.status).to.equal('pushed-elsewhere');
      expect(result.status === 'pushed-elsewhere' && result.reason).to.match(
        /does not rebase cleanly.*NOTES\.md/s,
      );
      expect(await readFile(path.join(dir, '.mr-agent/patch.diff'), 'utf8')).to.contain('+agent');
      expect(await readFile(path.join(dir, 'NOTES.md'), 'utf8')).to.equal('agent\n');
      expect(git(dir, 'status', '--porcelain')).to.equal('?? .mr-agent/');
    });
  });

  describe('against a local bare remote', () => {
    let root: string;
    let bare: string;
    let work: string;
    const sh = (cwd: string, ...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
        cwd,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      }).trim();

    /** The remote moves on with `theirs`; the checkout commits `ours` (the agent's commit). */
    async function diverge(theirs: Record<string, string>, ours: Record<string, string>) {
      const other = path.join(root, 'other');
      execFileSync('git', ['clone', '-q', bare, other], { stdio: 'ignore' });
      for (const [file, text] of Object.entries(theirs))
        await writeFile(path.join(other, file), text);
      sh(other, 'commit', '-qam', 'theirs');
      sh(other, 'push', '-q', 'origin', 'HEAD:refs/heads/main');
      for (const [file, text] of Object.entries(ours)) await writeFile(path.join(work, file), text);
      sh(work, 'add', '-A');
      sh(work, 'commit', '-qm', 'ours');
    }

    function deliveryGit() {
      const redactor = new Redactor();
      const git = deliveryGitOf(shellCheckout, {
        cwd: work,
        hostEnv: { PATH: process.env.PATH },
        shell: new ExecaShell(),
        redactor,
        logger: createMemoryLogger({ redactor }).logger,
        remoteUrl: bare,
        identity: IDENTITY,
      });
      return { git, redactor };
    }

    beforeEach(async () => {
      root = await mkdtemp(path.join(tmpdir(), 'mr-agent-rebase-'));
      bare = path.join(root, 'remote.git');
      work = path.join(root, 'work');
      execFileSync('git', ['init', '-q', '--bare', '-b', 'main', bare]);
      execFileSync('git', ['clone', '-q', bare, work], { stdio: 'ignore' });
      await mkdir(path.join(work, 'src'));
      await writeFile(path.join(work, 'src/app.js'), 'v1\n');
      await writeFile(path.join(work, 'NOTES.md'), 'base\n');
      sh(work, 'add', '-A');
      sh(work, 'commit', '-qm', 'one');
      sh(work, 'push', '-q', 'origin', 'HEAD:refs/heads/main');
    });
    afterEach(() => rm(root, { recursive: true, force: true }));

    it('M1 the rebase interprets no .gitattributes the command user left in the checkout (merge=union does not hide a conflict)', async () => {
      await diverge({ 'NOTES.md': 'human\n' }, { 'NOTES.md': 'agent\n' });
      // planted after the agent's commit, by a command's background process
      await writeFile(path.join(work, '.gitattributes'), 'NOTES.md merge=union\n');
      const before = sh(bare, 'rev-parse', 'refs/heads/main');
      const { git, redactor } = deliveryGit();

      let error: unknown;
      await pushWithOneRebase(git, bare, 'main', redactor).catch((e: unknown) => (error = e));

      expect(error).to.be.instanceOf(CommandFailedError);
      expect((error as Error).message).to.contain('does not rebase cleanly');
      expect(sh(bare, 'rev-parse', 'refs/heads/main')).to.equal(before);
    });

    (isRoot ? it : it.skip)(
      'M1 a folder of the command user swapped for a link to a root-only folder before the rebase: nothing is written through it, the change is rebased and pushed',
      async () => {
        await diverge({ 'src/app.js': 'v2 by a human\n' }, { 'NOTES.md': 'agent\n' });
        const secret = path.join(root, 'root-only');
        await mkdir(secret, { mode: 0o700 });
        await writeFile(path.join(secret, 'app.js'), 'root only\n', { mode: 0o600 });
        await chown(path.join(work, 'src'), 65534, 65534);
        await rename(path.join(work, 'src'), path.join(work, 'src-moved'));
        await symlink(secret, path.join(work, 'src'));
        await chmod(secret, 0o700);
        const { git, redactor } = deliveryGit();

        const pushed = await pushWithOneRebase(git, bare, 'main', redactor);

        expect(pushed.rebased).to.equal(true);
        expect(sh(bare, 'rev-parse', 'refs/heads/main')).to.equal(pushed.commit);
        expect(sh(bare, 'show', `${pushed.commit}:src/app.js`)).to.equal('v2 by a human');
        expect(sh(bare, 'show', `${pushed.commit}:NOTES.md`)).to.equal('agent');
        expect(await readdir(secret)).to.deep.equal(['app.js']);
        expect(await readFile(path.join(secret, 'app.js'), 'utf8')).to.equal('root only\n');
        expect((await lstat(path.join(work, 'src'))).isSymbolicLink()).to.equal(true);
      },
    );
  });
});
