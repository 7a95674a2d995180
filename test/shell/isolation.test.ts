import { expect } from 'chai';
import { link, lstat, mkdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  commandsRefused,
  isolatedRequest,
  type CommandIsolation,
} from '../../src/core/isolation.ts';
import { chooseCommandUser } from '../../src/shell/command-user.ts';
import { ExecaShell } from '../../src/shell/execa-shell.ts';
import { Git } from '../../src/shell/git.ts';
import { planIsolation, startIsolation } from '../../src/shell/isolation.ts';
import { writeFileTool } from '../../src/tools/files.ts';
import { makeTempRepo } from '../support/temp-repo.ts';
import { toolContext } from '../support/tool-context.ts';

const PASSWD = [
  'root:x:0:0:root:/root:/bin/bash',
  'nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin',
  'agent:x:1001:1001::/home/agent:/bin/sh',
  'broken:x:abc:1::/:/bin/sh',
].join('\n');
const security = { isolation: 'required' as const, command_user: 'agent' };
const isRoot = process.getuid?.() === 0;
const env = { PATH: process.env.PATH ?? '' };
const request = { command: 'id -u', cwd: tmpdir(), env };

describe('shell: commands run as another user (issue 19 §3)', () => {
  it('chooses the configured user from /etc/passwd, uid:gid, and nobody for a missing default (issue 19 §3)', () => {
    expect(chooseCommandUser('agent', PASSWD)).to.deep.equal({
      user: { name: 'agent', uid: 1001, gid: 1001 },
    });
    expect(chooseCommandUser('agent', '')).to.deep.equal({
      user: { name: 'nobody', uid: 65534, gid: 65534 },
    });
    expect(chooseCommandUser('2000:3000', '')).to.deep.include({
      user: { name: '2000:3000', uid: 2000, gid: 3000 },
    });
    expect(chooseCommandUser('builder', PASSWD)).to.have.property('error').that.contains('builder');
    expect(chooseCommandUser('broken', PASSWD)).to.have.property('error');
    expect(chooseCommandUser('root', PASSWD)).to.have.property('error').that.contains('root');
    expect(chooseCommandUser('0:0', PASSWD)).to.have.property('error');
  });

  it('isolates only as root; elsewhere says why (issue 19 §3)', () => {
    const input = { security, checkout: '/x', stateDir: '.mr-agent', passwd: PASSWD };
    expect(planIsolation({ ...input, uid: 0 })).to.deep.equal({
      user: { name: 'agent', uid: 1001, gid: 1001 },
    });
    expect(planIsolation({ ...input, uid: 1000 })).to.deep.equal({
      sameUser: 'mr-agent is not running as root (uid 1000)',
    });
  });

  it('refuses commands without isolation unless the risk is accepted; the spawn options carry the user and its home (issue 19 §3)', async () => {
    const refused: CommandIsolation = { kind: 'same-user', reason: 'not root', accepted: false };
    const accepted: CommandIsolation = { ...refused, accepted: true };
    expect(commandsRefused(refused)).to.contain('commands are not run: not root');
    expect(commandsRefused(accepted)).to.equal(undefined);
    let error: unknown;
    await isolatedRequest(refused, request).catch((e: unknown) => (error = e));
    expect(String(error)).to.contain('accept-risk');
    expect(await isolatedRequest(accepted, request)).to.deep.equal(request);
    expect(await isolatedRequest(undefined, request)).to.deep.equal(request);
  });

  it('security.isolation auto: without root, a CI job refuses repository commands and a local run accepts the risk (issue 19 §3)', async () => {
    const repo = await makeTempRepo({ 'a.txt': 'a\n' });
    try {
      const auto = { ...security, isolation: 'auto' as const };
      const base = { security: auto, checkout: repo.dir, stateDir: '.mr-agent', uid: 1000 };
      const job = await startIsolation(base);
      const local = await startIsolation({ ...base, local: true });
      expect(job).to.deep.include({ kind: 'same-user', accepted: false });
      expect(commandsRefused(job)).to.match(/not running as root/);
      expect(local).to.deep.include({ kind: 'same-user', accepted: true });
      expect(commandsRefused(local)).to.equal(undefined);
      const required = await startIsolation({ ...base, security, local: true });
      expect(required).to.deep.include({ accepted: false });
    } finally {
      await repo.cleanup();
    }
  });

  it('as root a command runs as the command user, cannot read the agent’s /proc/<pid>/environ, and the agent’s git still works; without root no other user is used (issue 19 §3)', async () => {
    const repo = await makeTempRepo({ 'a.txt': 'a\n', 'src/b.txt': 'b\n' });
    try {
      const isolation = await startIsolation({
        security,
        checkout: repo.dir,
        stateDir: '.mr-agent',
      });
      const shell = new ExecaShell();
      if (!isRoot) {
        expect(isolation).to.deep.include({ kind: 'same-user', accepted: false });
        // the spawn option itself: another uid cannot be taken without root
        const uid = process.getuid?.() === 65534 ? 65533 : 65534;
        const other = await shell.run({ ...request, runAs: { uid, gid: uid } });
        expect(other.failed).to.equal(true);
        expect(other.stdout).to.equal('');
        return;
      }
      expect(isolation.kind).to.equal('separate-user');
      if (isolation.kind !== 'separate-user') return;
      const { user } = isolation;
      const spawn = await isolatedRequest(isolation, {
        command: `id -u; id -G; echo "$HOME"; cat /proc/${process.pid}/environ | head -c 20 | wc -c; touch new.txt src/c.txt`,
        cwd: repo.dir,
        env,
      });
      expect(spawn.runAs).to.deep.equal({ uid: user.uid, gid: user.gid });
      expect(spawn.env.HOME).to.equal(user.home);
      const result = await shell.run(spawn);
      const [uid, groups, home, readable] = result.stdout.split('\n');
      expect(uid).to.equal(String(user.uid));
      expect(groups).to.equal(String(user.gid));
      expect(home).to.equal(user.home);
      expect(readable?.trim()).to.equal('0');
      expect(result.stderr).to.match(/Permission denied/);
      // the home: the user's own, closed to others
      const homeInfo = await stat(user.home);
      expect([homeInfo.uid, homeInfo.mode & 0o777]).to.deep.equal([user.uid, 0o700]);
      // the checkout: the user's files, but `.git`, the state folder and the folder itself stay root's
      expect((await stat(path.join(repo.dir, 'src/b.txt'))).uid).to.equal(user.uid);
      expect((await stat(path.join(repo.dir, 'new.txt'))).uid).to.equal(user.uid);
      expect((await stat(path.join(repo.dir, '.git'))).uid).to.equal(0);
      expect((await stat(path.join(repo.dir, '.git/config'))).uid).to.equal(0);
      expect((await stat(path.join(repo.dir, '.mr-agent'))).uid).to.equal(0);
      const top = await stat(repo.dir);
      expect([top.uid, top.gid, top.mode & 0o7777]).to.deep.equal([0, user.gid, 0o1770]);
      const git = new Git({ shell: new ExecaShell(), cwd: repo.dir, hostEnv: env });
      expect(await git.must(['status', '--porcelain'])).to.contain('new.txt');
      // the sticky checkout folder: `.git` cannot be swapped for a planted one
      const swap = await shell.run(
        await isolatedRequest(isolation, { command: 'mv .git .git-old', cwd: repo.dir, env }),
      );
      expect(swap.failed).to.equal(true);
    } finally {
      await repo.cleanup();
    }
  });

  it('as root what the agent writes is handed over before the next command; links are not followed, hard links not given away (issue 19 §3)', async () => {
    const repo = await makeTempRepo({ 'a.txt': 'a\n' });
    const outside = path.join(path.dirname(repo.dir), 'outside.txt');
    try {
      await writeFile(outside, 'root only\n', { mode: 0o600 });
      const isolation = await startIsolation({
        security,
        checkout: repo.dir,
        stateDir: '.mr-agent',
      });
      if (isolation.kind !== 'separate-user') {
        expect(isRoot).to.equal(false);
        expect(commandsRefused(isolation)).to.contain('not running as root');
        return;
      }
      await mkdir(path.join(repo.dir, 'docs'));
      await writeFile(path.join(repo.dir, 'docs/new.md'), 'written by the agent\n');
      await symlink(outside, path.join(repo.dir, 'link.txt'));
      await link(outside, path.join(repo.dir, 'hard.txt'));
      const result = await new ExecaShell().run(
        await isolatedRequest(isolation, {
          command: 'echo more >> docs/new.md && touch docs/other.md; cat link.txt',
          cwd: repo.dir,
          env,
        }),
      );
      expect(result.exitCode, result.output).not.to.equal(0);
      expect(result.stdout).not.to.contain('root only');
      expect(await readFile(path.join(repo.dir, 'docs/new.md'), 'utf8')).to.contain('more');
      expect((await lstat(path.join(repo.dir, 'link.txt'))).uid).to.equal(isolation.user.uid);
      expect((await stat(outside)).uid).to.equal(0);
      expect((await lstat(path.join(repo.dir, 'hard.txt'))).uid).to.equal(0);
    } finally {
      await repo.cleanup();
    }
  });

  it('M1 after the first command nothing is walked: what write_file writes (its new folders too) is given at once, anything else stays the agent’s', async function () {
    if (!isRoot) this.skip();
    const repo = await makeTempRepo({ 'a.txt': 'a\n' });
    try {
      const isolation = await startIsolation({
        security,
        checkout: repo.dir,
        stateDir: '.mr-agent',
      });
      if (isolation.kind !== 'separate-user') throw new Error('needs a second user');
      const shell = new ExecaShell();
      const asUser = async (command: string) =>
        shell.run(await isolatedRequest(isolation, { command, cwd: repo.dir, env }));
      expect((await asUser('echo user >> a.txt')).exitCode).to.equal(0);
      const ctx = await toolContext(repo.dir, { isolation });
      await writeFileTool.run({ path: 'new/deep/file.txt', content: 'by the agent\n' }, ctx);
      await writeFile(path.join(repo.dir, 'not-by-a-tool.txt'), 'x\n');
      const result = await asUser('echo more >> new/deep/file.txt && touch new/deep/other.txt');
      expect(result.exitCode, result.output).to.equal(0);
      expect(await readFile(path.join(repo.dir, 'new/deep/file.txt'), 'utf8')).to.contain('more');
      expect((await stat(path.join(repo.dir, 'new'))).uid).to.equal(isolation.user.uid);
      // no walk of the tree before the second command
      expect((await stat(path.join(repo.dir, 'not-by-a-tool.txt'))).uid).to.equal(0);
    } finally {
      await repo.cleanup();
    }
  });
});
