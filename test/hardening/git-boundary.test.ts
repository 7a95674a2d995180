import { expect } from 'chai';
import { shellCheckout } from '../../src/shell/checkout-port.ts';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isolatedRequest, type CommandUser } from '../../src/core/isolation.ts';
import { createMemoryLogger } from '../../src/log/logger.ts';
import { Redactor } from '../../src/log/redact.ts';
import { deliver } from '../../src/phases/deliver/deliver.ts';
import { deliveryGit as deliveryGitOf } from '../../src/phases/deliver/git.ts';
import { stageChanges } from '../../src/phases/deliver/stage.ts';
import { workingDiff } from '../../src/phases/review/diff.ts';
import { ExecaShell } from '../../src/shell/execa-shell.ts';
import { Git } from '../../src/shell/git.ts';
import { startIsolation } from '../../src/shell/isolation.ts';
import { startDeliveryWorld } from '../phases/deliver/delivery-world.ts';

/**
 * The trust boundary of git (SPEC M1, M5): the agent holds the secrets and
 * runs git as root on a checkout the command user writes. Whatever that user
 * writes — a repository in a submodule's folder with its own filters, hooks,
 * fsmonitor, textconv, pager and ssh command; attributes naming drivers;
 * configuration in its home; a gitlink — no git call of the agent runs it,
 * and delivery never stages it.
 */
const isRoot = process.getuid?.() === 0;
const SECRET = 'glpat-boundary-SECRET-0123456789';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@example.com',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@example.com',
    },
  }).trim();

interface Scene {
  base: string;
  checkout: string;
  canary: string;
  user: CommandUser;
  /** Runs a shell command as the command user in the checkout. */
  asUser(command: string): Promise<string>;
}

/** A checkout whose HEAD has a submodule `sub` (a gitlink), handed to a real second user. */
async function scene(): Promise<Scene> {
  const base = await mkdtemp(path.join(tmpdir(), 'git-boundary-'));
  const lib = path.join(base, 'lib');
  await mkdir(lib);
  git(lib, 'init', '-q', '-b', 'main');
  await writeFile(path.join(lib, 'l.txt'), 'lib\n');
  git(lib, 'add', '-A');
  git(lib, 'commit', '-q', '-m', 'lib');
  const libHead = git(lib, 'rev-parse', 'HEAD');
  const checkout = path.join(base, 'repo');
  await mkdir(checkout);
  git(checkout, 'init', '-q', '-b', 'main');
  await writeFile(path.join(checkout, 'a.txt'), 'a\n');
  await writeFile(
    path.join(checkout, '.gitmodules'),
    '[submodule "sub"]\n\tpath = sub\n\turl = ../lib\n',
  );
  git(checkout, 'add', '-A');
  git(checkout, 'update-index', '--add', '--cacheinfo', `160000,${libHead},sub`);
  git(checkout, 'commit', '-q', '-m', 'init');
  await mkdir(path.join(checkout, 'sub'));
  // only root can write here: the canary exists only when root ran a trap
  await mkdir(path.join(base, 'root-only-canary'), { mode: 0o700 });
  const canary = path.join(base, 'root-only-canary', 'canary');
  const isolation = await startIsolation({
    security: { isolation: 'required', command_user: 'agent' },
    checkout,
    stateDir: '.mr-agent',
  });
  if (isolation.kind !== 'separate-user') throw new Error('needs root and a second user');
  const shell = new ExecaShell();
  const env = { PATH: process.env.PATH ?? '', MR_AGENT_TEST_SECRET: 'not for commands' };
  return {
    base,
    checkout,
    canary,
    user: isolation.user,
    async asUser(command) {
      const result = await shell.run(
        await isolatedRequest(isolation, { command, cwd: checkout, env }),
      );
      if (result.exitCode !== 0) throw new Error(`as the command user: ${result.output}`);
      return result.stdout;
    },
  };
}

/**
 * A program that records that it ran, as whom, and what it could read of the
 * agent's secrets (every process's environment it can open): the canary is
 * in a folder only root can write, so it exists only when root ran a trap.
 */
async function writeTrap(s: Scene): Promise<string> {
  const file = path.join(s.base, 'trap.sh');
  await writeFile(
    file,
    `#!/bin/sh\n{ echo "$1 $(id -u) $(cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep -m1 MR_AGENT_TEST_SECRET)"; } >> ${s.canary} 2>/dev/null\ncat\n`,
    { mode: 0o755 },
  );
  return file;
}

/** Every trap the command user can set where git might look. */
async function plantEverything(s: Scene): Promise<void> {
  const trap = await writeTrap(s);
  const t = (what: string) => `'${trap} ${what}'`;
  await s.asUser(
    [
      // the submodule's folder becomes a repository of the user's, with a tracked file
      'cd sub && git init -q . && echo lib > l.txt',
      `git config filter.x.clean ${t('filter-clean')} && git config filter.x.smudge ${t('filter-smudge')}`,
      'git config filter.x.required true',
      `git config diff.x.textconv ${t('textconv')} && git config diff.x.command ${t('diff-command')}`,
      `git config core.fsmonitor ${t('fsmonitor')} && git config core.pager ${t('pager')}`,
      `git config core.sshCommand ${t('ssh')} && git config diff.external ${t('external-diff')}`,
      'printf "* filter=x diff=x\\n" > .gitattributes',
      'git -c safe.directory=* -c user.name=u -c user.email=u@x add -A',
      'git -c safe.directory=* -c user.name=u -c user.email=u@x commit -q -m planted',
      `printf '#!/bin/sh\\n${trap} hook\\n' > .git/hooks/post-index-change`,
      'chmod +x .git/hooks/post-index-change',
      // same size, a new time: git must read the file through the filter to know it is unchanged
      'touch -m -d "+2 minutes" l.txt && cd ..',
      // the checkout's own attributes name the same drivers, and a change to show
      'printf "* filter=x diff=x merge=x\\n" > .gitattributes && echo changed >> a.txt && echo new > b.txt',
      // configuration in the user's home and XDG folder, included by every path
      `git config --file "$HOME/.gitconfig" filter.x.clean ${t('home-filter')}`,
      `git config --file "$HOME/.gitconfig" core.fsmonitor ${t('home-fsmonitor')}`,
      `git config --file "$HOME/.gitconfig" core.pager ${t('home-pager')}`,
      `git config --file "$HOME/.gitconfig" includeIf.gitdir:/.path "$HOME/included"`,
      `git config --file "$HOME/included" diff.x.textconv ${t('included-textconv')}`,
      `mkdir -p "$HOME/.config/git" && cp "$HOME/.gitconfig" "$HOME/.config/git/config"`,
      `printf "* filter=x diff=x\\n" > "$HOME/.config/git/attributes"`,
    ].join(' && '),
  );
}

async function canaryText(s: Scene): Promise<string> {
  return existsSync(s.canary) ? await readFile(s.canary, 'utf8') : '';
}

describe('hardening: the agent’s git never runs what the command user wrote (SPEC M1, M5)', function () {
  this.timeout(30_000);
  let s: Scene | undefined;
  afterEach(async () => {
    if (s) await rm(s.base, { recursive: true, force: true });
    s = undefined;
  });

  it('M5 a submodule turned into a repository with its own filter, hooks, fsmonitor, textconv, pager and ssh command: status, diff, review, staging and commit run none of them as root', async function () {
    if (!isRoot) this.skip();
    s = await scene();
    process.env.MR_AGENT_TEST_SECRET = SECRET;
    try {
      await plantEverything(s);
      const hostEnv = { PATH: process.env.PATH ?? '' };
      const agentGit = new Git({ shell: new ExecaShell(), cwd: s.checkout, hostEnv });
      const ran: string[] = [];
      const check = async (what: string, action: () => Promise<unknown>) => {
        await action();
        const text = await canaryText(s!);
        if (text) ran.push(`${what}: ${text.trim()}`);
        await rm(s!.canary, { force: true });
      };
      await check('status', () => agentGit.run(['status', '--porcelain']));
      await check('status --short', () => agentGit.run(['status', '--short']));
      await check('diff HEAD', () => agentGit.run(['diff', 'HEAD']));
      await check('diff', () => agentGit.run(['diff']));
      const redactor = new Redactor();
      const { logger } = createMemoryLogger({ redactor, level: 'debug', format: 'json' });
      await check('review diff', () =>
        workingDiff({
          checkout: shellCheckout,
          shell: new ExecaShell(),
          repoDir: s!.checkout,
          stateDir: '.mr-agent',
          hostEnv,
          redactor,
          logger,
          maxChars: 100_000,
          changedFiles: [],
        }),
      );
      const deliveryGit = deliveryGitOf(shellCheckout, {
        shell: new ExecaShell(),
        cwd: s.checkout,
        hostEnv,
        redactor,
        logger,
        identity: { name: 'mr-agent', email: 'mr-agent@example.invalid' },
      });
      let staged: Awaited<ReturnType<typeof stageChanges>> | undefined;
      await check('staging', async () => {
        staged = await stageChanges(deliveryGit, s!.checkout, '.mr-agent', shellCheckout.read);
      });
      await check('diff --cached', () => deliveryGit.run(['diff', '--cached']));
      await check('commit', () => deliveryGit.must(['commit', '--no-verify', '-q', '-m', 'x']));
      await check('show', () => deliveryGit.run(['show', 'HEAD']));
      await check('reset', () => deliveryGit.run(['reset', '-q']));
      expect(ran, 'programs the command user planted, run by the agent’s git').to.deep.equal([]);
      // the traps were live all along: root's git with hooks and fsmonitor off, but submodules on, runs the filter
      git(s.checkout, '-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', 'status');
      expect(await canaryText(s), 'the traps are live').to.match(/^filter-clean 0 .*SECRET/m);
      // the change is delivered; the submodule is not touched
      expect(staged?.staged.sort()).to.deep.equal(['.gitattributes', 'a.txt', 'b.txt']);
      const tree = git(s.checkout, 'ls-tree', '-r', 'HEAD');
      expect(tree).to.contain(`160000 commit ${git(s.checkout, 'rev-parse', 'HEAD~1:sub')}\tsub`);
      expect(git(s.checkout, 'show', 'HEAD:a.txt')).to.equal('a\nchanged');
    } finally {
      delete process.env.MR_AGENT_TEST_SECRET;
    }
  });

  it('M5 a repository planted in a new folder is never staged as a gitlink: a repository without submodules gets none', async function () {
    if (!isRoot) this.skip();
    s = await scene();
    await s.asUser(
      [
        'mkdir planted && cd planted && git init -q . && echo x > x.txt',
        'git -c safe.directory=* add x.txt',
        'git -c safe.directory=* -c user.name=u -c user.email=u@x commit -q -m planted',
        'cd .. && echo kept > kept.txt',
      ].join(' && '),
    );
    const redactor = new Redactor();
    const { logger } = createMemoryLogger({ redactor, level: 'debug', format: 'json' });
    const deliveryGit = deliveryGitOf(shellCheckout, {
      shell: new ExecaShell(),
      cwd: s.checkout,
      hostEnv: { PATH: process.env.PATH ?? '' },
      redactor,
      logger,
      identity: { name: 'mr-agent', email: 'mr-agent@example.invalid' },
    });
    const staged = await stageChanges(deliveryGit, s.checkout, '.mr-agent', shellCheckout.read);
    expect(staged.staged).to.deep.equal(['kept.txt']);
    expect(staged.skipped).to.deep.equal([{ path: 'planted', why: 'a repository of its own' }]);
    const index = git(s.checkout, 'ls-files', '--stage');
    expect(index.split('\n').filter((l) => l.startsWith('160000'))).to.have.length(1);
    expect(index).not.to.contain('planted');
  });

  it('M2 a changed file behind a folder swapped for a link to a root-only file is not staged', async function () {
    if (!isRoot) this.skip();
    s = await scene();
    const secretDir = path.join(s.base, 'root-only');
    await mkdir(secretDir, { mode: 0o700 });
    await writeFile(path.join(secretDir, 'a.txt'), `${SECRET}\n`);
    // the agent's git lists `docs/a.txt`; the folder then becomes a link to root's folder
    await s.asUser('mkdir docs && echo fine > docs/a.txt');
    const redactor = new Redactor();
    const { logger } = createMemoryLogger({ redactor, level: 'debug', format: 'json' });
    const deliveryGit = deliveryGitOf(shellCheckout, {
      shell: new ExecaShell(),
      cwd: s.checkout,
      hostEnv: { PATH: process.env.PATH ?? '' },
      redactor,
      logger,
      identity: { name: 'mr-agent', email: 'mr-agent@example.invalid' },
    });
    const status = await deliveryGit.must(['status', '--porcelain', '-uall']);
    expect(status).to.contain('docs/a.txt');
    await s.asUser('rm -r docs');
    await symlink(secretDir, path.join(s.checkout, 'docs'));
    // git now sees the link itself as the new entry; what it pointed into is never read
    const staged = await stageChanges(deliveryGit, s.checkout, '.mr-agent', shellCheckout.read);
    expect(staged.staged).to.deep.equal(['docs']);
    expect(git(s.checkout, 'cat-file', '-p', `:docs`)).to.equal(secretDir);
    expect(git(s.checkout, 'diff', '--cached')).not.to.contain(SECRET);
  });

  it('M5 H3 delivery never pushes a gitlink the command user planted: the pushed commit has the change and no submodule', async function () {
    if (!isRoot) this.skip();
    const world = await startDeliveryWorld();
    try {
      const dir = world.checkout('feature/greeting');
      const isolation = await startIsolation({
        security: { isolation: 'required', command_user: 'agent' },
        checkout: dir,
        stateDir: '.mr-agent',
      });
      if (isolation.kind !== 'separate-user') throw new Error('needs root and a second user');
      const result = await new ExecaShell().run(
        await isolatedRequest(isolation, {
          command: [
            'mkdir vendored && cd vendored && git init -q . && echo x > x.txt',
            'git -c safe.directory=* add x.txt',
            'git -c safe.directory=* -c user.name=u -c user.email=u@x commit -q -m planted',
            'cd .. && echo "export const farewell = 1;" > src/farewell.js',
          ].join(' && '),
          cwd: dir,
          env: { PATH: process.env.PATH ?? '' },
        }),
      );
      expect(result.exitCode, result.output).to.equal(0);
      const delivered = await deliver(world.input(dir, await world.mrTarget()));
      expect(delivered.status).to.equal('pushed');
      const remote = world.w.s.project.repoDir;
      const tree = git(remote, 'ls-tree', '-r', 'refs/heads/feature/greeting');
      expect(tree).to.contain('src/farewell.js');
      expect(tree).not.to.contain('160000');
      expect(tree).not.to.contain('vendored');
    } finally {
      await world.close();
    }
  });
});
