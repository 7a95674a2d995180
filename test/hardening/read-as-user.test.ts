import { expect } from 'chai';
import { shellCheckout } from '../../src/shell/checkout-port.ts';
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CommandRequest, CommandResult, Shell } from '../../src/core/shell-port.ts';
import { createMemoryLogger } from '../../src/log/logger.ts';
import { Redactor } from '../../src/log/redact.ts';
import { deliveryGit as deliveryGitOf } from '../../src/phases/deliver/git.ts';
import { stageChanges } from '../../src/phases/deliver/stage.ts';
import { workingDiff } from '../../src/phases/review/diff.ts';
import { ExecaShell } from '../../src/shell/execa-shell.ts';
import { startIsolation } from '../../src/shell/isolation.ts';
import { isolatedRequest } from '../../src/core/isolation.ts';
import { readInRepo } from '../../src/tools/repo-read.ts';
import { repoRoot } from '../../src/tools/sandbox.ts';
import { toolContext } from '../support/tool-context.ts';
import { call } from '../tools/call.ts';

/**
 * Once the checkout is the command user's, the agent (root, holding the
 * secrets) reads its files only as that user (SPEC M1, M2): a background
 * process of the user can swap any folder for a link at any moment, so a
 * read by root could be led to a file only root may read. Read as the user,
 * whatever a link leads to is what the user could read anyway.
 */
const isRoot = process.getuid?.() === 0;
const SECRET = 'root-only-SECRET-5b1f0c9e77';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
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
  /** A folder only root can read, holding `new.txt` and `a.txt` with the secret. */
  rootOnly: string;
  asUser(command: string): Promise<void>;
}

const scenes: string[] = [];
afterEach(async () => {
  while (scenes.length) await rm(scenes.pop()!, { recursive: true, force: true });
});

/** A committed checkout handed to the real second user by its first command. */
async function scene(): Promise<Scene> {
  const base = await realpath(await mkdtemp(path.join(tmpdir(), 'read-as-user-')));
  scenes.push(base);
  const checkout = path.join(base, 'repo');
  await mkdir(path.join(checkout, 'docs'), { recursive: true });
  git(checkout, 'init', '-q', '-b', 'main');
  await writeFile(path.join(checkout, 'docs/a.txt'), 'a\n');
  git(checkout, 'add', '-A');
  git(checkout, 'commit', '-q', '-m', 'init');
  const rootOnly = path.join(base, 'root-only');
  await mkdir(rootOnly, { mode: 0o700 });
  await writeFile(path.join(rootOnly, 'new.txt'), `${SECRET}\n`, { mode: 0o600 });
  await writeFile(path.join(rootOnly, 'a.txt'), `${SECRET}\n`, { mode: 0o600 });
  const isolation = await startIsolation({
    security: { isolation: 'required', command_user: 'agent' },
    checkout,
    stateDir: '.mr-agent',
  });
  if (isolation.kind !== 'separate-user') throw new Error('needs root and a second user');
  const shell = new ExecaShell();
  return {
    base,
    checkout,
    rootOnly,
    async asUser(command) {
      const request = await isolatedRequest(isolation, {
        command,
        cwd: checkout,
        env: { PATH: process.env.PATH ?? '' },
      });
      const result = await shell.run(request);
      if (result.exitCode !== 0) throw new Error(`as the command user: ${result.output}`);
    },
  };
}

/**
 * The real shell, with one swap injected right after the first git command
 * that matches: the moment a background process of the command user would
 * pick, between git's listing and the agent's read.
 */
function swappingShell(after: RegExp, swap: () => Promise<void>): Shell {
  const real = new ExecaShell();
  let done = false;
  return {
    async run(request: CommandRequest): Promise<CommandResult> {
      const result = await real.run(request);
      if (!done && after.test(request.command)) {
        done = true;
        await swap();
      }
      return result;
    },
  };
}

describe('hardening: the agent reads the checkout as the command user (SPEC M1, M2)', () => {
  it('M2 review: a new file whose folder is swapped for a link to a root-only folder after the listing never brings the secret into the review diff', async function () {
    if (!isRoot) this.skip();
    const s = await scene();
    await s.asUser('mkdir fresh && echo harmless > fresh/new.txt && echo b > docs/a.txt');
    const redactor = new Redactor();
    const { logger } = createMemoryLogger({ redactor, level: 'debug', format: 'json' });
    const shell = swappingShell(/ls-files/, async () => {
      await s.asUser('mv fresh fresh.away');
      await symlink(s.rootOnly, path.join(s.checkout, 'fresh'));
    });
    const diff = await workingDiff({
      checkout: shellCheckout,
      repoDir: s.checkout,
      stateDir: '.mr-agent',
      hostEnv: { PATH: process.env.PATH ?? '' },
      redactor,
      logger,
      maxChars: 100_000,
      changedFiles: [],
      shell,
    });
    expect(diff.files).to.include('fresh/new.txt');
    expect(diff.text).to.contain('+b').and.not.contain(SECRET);
  });

  it('M1 after the hand-over a file only root may read is read by no reader of the checkout: review, staging, read_file, readInRepo', async function () {
    if (!isRoot) this.skip();
    const s = await scene();
    await s.asUser('echo changed > docs/a.txt');
    // a file inside the checkout the command user cannot read: the agent's reads have no more rights
    const secretFile = path.join(s.checkout, 'docs', 'only-root.txt');
    await writeFile(secretFile, `${SECRET}\n`, { mode: 0o600 });
    await chmod(secretFile, 0o600);
    const redactor = new Redactor();
    const { logger } = createMemoryLogger({ redactor, level: 'debug', format: 'json' });
    const hostEnv = { PATH: process.env.PATH ?? '' };
    const diff = await workingDiff({
      checkout: shellCheckout,
      repoDir: s.checkout,
      stateDir: '.mr-agent',
      hostEnv,
      redactor,
      logger,
      maxChars: 100_000,
      changedFiles: [],
      shell: new ExecaShell(),
    });
    expect(diff.files).to.include('docs/only-root.txt');
    expect(diff.text).to.contain('+changed').and.not.contain(SECRET);

    expect(await readInRepo(await repoRoot(s.checkout), 'docs/only-root.txt', 1000)).to.equal(
      undefined,
    );
    const ctx = await toolContext(s.checkout);
    const tool = await call(ctx, 'read_file', { path: 'docs/only-root.txt' });
    expect(tool.output).to.contain('unreadable').and.not.contain(SECRET);

    const deliveryGit = deliveryGitOf(shellCheckout, {
      cwd: s.checkout,
      hostEnv,
      shell: new ExecaShell(),
      redactor,
      logger,
      identity: { name: 'mr-agent', email: 'mr-agent@example.invalid' },
    });
    const staged = await stageChanges(deliveryGit, s.checkout, '.mr-agent', shellCheckout.read);
    expect(staged.staged).to.deep.equal(['docs/a.txt']);
    expect(staged.skipped).to.deep.equal([
      { path: 'docs/only-root.txt', why: 'unreadable (EACCES)' },
    ]);
    expect(git(s.checkout, 'diff', '--cached'))
      .to.contain('+changed')
      .and.not.contain(SECRET);
  });
});
