import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gitOnlyShell, isPlainGit } from '../../src/shell/git-only-shell.ts';
import { ExecaShell } from '../../src/shell/execa-shell.ts';
import { Git } from '../../src/shell/git.ts';

/**
 * Issue 19 §1: the shell of a run whose checkout must not run (a fork's
 * merge request) runs the agent's git and nothing else.
 */
describe('shell/git-only-shell (issue 19 §1 backstop)', () => {
  let dir: string;
  const env = { PATH: process.env.PATH ?? '' };
  const reason = "the fork's code is not run";

  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'mr-agent-git-only-'));
    execFileSync('git', ['init', '-q', dir]);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("issue 19 §1 the agent's own git calls run", async () => {
    const git = new Git({ shell: gitOnlyShell(new ExecaShell(), reason), cwd: dir, hostEnv: env });
    const result = await git.run(['status', '--porcelain=v1']);
    expect(result.exitCode).to.equal(0);
    const plain = await gitOnlyShell(new ExecaShell(), reason).run({
      command: 'git status --porcelain=v1 -z --untracked-files=all',
      cwd: dir,
      env,
    });
    expect(plain.exitCode).to.equal(0);
  });

  it('issue 19 §1 any other command is refused without starting, and says why', async () => {
    const shell = gitOnlyShell(new ExecaShell(), reason);
    const canary = path.join(dir, 'canary');
    for (const command of [
      `touch ${canary}`,
      'npm test',
      `git status; touch ${canary}`,
      `git status && touch ${canary}`,
      `git $(touch ${canary})`,
      `git \`touch ${canary}\``,
      `git status | tee ${canary}`,
      `git status > ${canary}`,
      `exec git -c "core.pager=touch ${canary}" log`,
      `GIT_PAGER=x git log`,
      `git -c 'alias.x=!touch ${canary}' x`,
      `git -c 'core.pager=touch ${canary}' log`,
      `exec git fetch --upload-pack='touch ${canary}' origin`,
      `git rebase -x 'touch ${canary}' HEAD`,
      `git rebase --exec='touch ${canary}' HEAD`,
      `git submodule foreach 'touch ${canary}'`,
      `git -C / status`,
    ]) {
      const result = await shell.run({ command, cwd: dir, env });
      expect(result, command).to.include({ failed: true, exitCode: undefined });
      expect(result.output, command).to.equal(`not run: ${reason}`);
    }
    expect(existsSync(canary)).to.equal(false);
  });

  it('a quoted word is still plain git (single quotes, as src/shell/quote.ts writes them)', () => {
    expect(isPlainGit("exec git -c 'user.name=Dana D' commit -F -")).to.equal(true);
    expect(isPlainGit("git show 'a'\\''b'")).to.equal(true);
    expect(isPlainGit('git show $HOME')).to.equal(false);
    expect(
      isPlainGit(
        "exec git -c core.hooksPath=/dev/null -c core.fsmonitor=false -c core.askPass= -c credential.helper= -c protocol.allow=never -c protocol.https.allow=always -c 'user.name=mr agent' push origin HEAD:refs/heads/x",
      ),
    ).to.equal(true);
  });
});
