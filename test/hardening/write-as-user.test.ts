import { expect } from 'chai';
import { spawn } from 'node:child_process';
import {
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  realpath,
  rename,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isolatedRequest, type CommandIsolation } from '../../src/core/isolation.ts';
import type { CommandRequest, CommandResult, Shell } from '../../src/core/shell-port.ts';
import { writeCheckout } from '../../src/shell/checkout-writer.ts';
import { ExecaShell } from '../../src/shell/execa-shell.ts';
import { startIsolation } from '../../src/shell/isolation.ts';
import { makeTempRepo } from '../support/temp-repo.ts';
import { toolContext } from '../support/tool-context.ts';
import { call } from '../tools/call.ts';

/**
 * Once commands of the command user may have run, the agent (root) writes
 * the checkout only as that user (SPEC M1, M2): a background process of the
 * user can swap any folder for a link between the agent's path check and its
 * write, and a write by root would then land outside the checkout.
 */
const isRoot = process.getuid?.() === 0;

interface Scene {
  checkout: string;
  /** A folder only root may write (and read). */
  rootOnly: string;
  isolation: CommandIsolation & { kind: 'separate-user' };
  asUser(command: string): Promise<void>;
  cleanup(): Promise<void>;
}

/** A committed checkout with a `docs/` folder, handed to the real second user by its first command. */
async function scene(): Promise<Scene> {
  const repo = await makeTempRepo({ 'docs/a.txt': 'a\n' });
  const base = path.dirname(repo.dir);
  const rootOnly = path.join(base, 'root-only');
  await mkdir(rootOnly, { mode: 0o700 });
  await writeFile(path.join(rootOnly, 'a.txt'), 'root only\n', { mode: 0o600 });
  const isolation = await startIsolation({
    security: { isolation: 'required', command_user: 'agent' },
    checkout: repo.dir,
    stateDir: '.mr-agent',
  });
  if (isolation.kind !== 'separate-user') throw new Error('needs root and a second user');
  const shell = new ExecaShell();
  const asUser = async (command: string) => {
    const request = await isolatedRequest(isolation, {
      command,
      cwd: repo.dir,
      env: { PATH: process.env.PATH ?? '' },
    });
    const result = await shell.run(request);
    if (result.exitCode !== 0) throw new Error(`as the command user: ${result.output}`);
  };
  await asUser('true');
  return { checkout: await realpath(repo.dir), rootOnly, isolation, asUser, cleanup: repo.cleanup };
}

/** The real shell, doing `swap` right before the first command it runs: the moment of the write. */
function swapBefore(swap: () => Promise<void>): Shell {
  const real = new ExecaShell();
  let done = false;
  return {
    async run(request: CommandRequest): Promise<CommandResult> {
      if (!done) {
        done = true;
        await swap();
      }
      return real.run(request);
    },
  };
}

describe('hardening: the agent writes the checkout as the command user (SPEC M1, M2)', () => {
  it('M2 a folder swapped for a link to a root-only folder right before the write gets nothing written there; the path is refused', async function () {
    if (!isRoot) this.skip();
    const s = await scene();
    try {
      const shell = swapBefore(async () => {
        await rename(path.join(s.checkout, 'docs'), path.join(s.checkout, 'docs.away'));
        await symlink(s.rootOnly, path.join(s.checkout, 'docs'));
      });
      const results = await writeCheckout(
        s.checkout,
        [
          { op: 'write', rel: 'docs/new.txt', content: Buffer.from('by the agent\n') },
          { op: 'write', rel: 'docs/a.txt', content: Buffer.from('overwritten\n') },
          { op: 'remove', rel: 'docs/a.txt' },
          { op: 'write', rel: 'fresh/deep/file.txt', content: Buffer.from('fine\n') },
        ],
        { isolation: s.isolation, shell },
      );
      expect(results.slice(0, 3)).to.deep.equal([
        { kind: 'refused', why: 'a folder on its path is a symbolic link' },
        { kind: 'refused', why: 'a folder on its path is a symbolic link' },
        { kind: 'refused', why: 'a folder on its path is a symbolic link' },
      ]);
      expect(results[3]).to.deep.equal({ kind: 'written', created: true });
      expect(await readdir(s.rootOnly)).to.deep.equal(['a.txt']);
      expect(await readFile(path.join(s.rootOnly, 'a.txt'), 'utf8')).to.equal('root only\n');
      // written as the user: its own file and folders, no hand-over needed
      for (const made of ['fresh', 'fresh/deep', 'fresh/deep/file.txt'])
        expect((await stat(path.join(s.checkout, made))).uid, made).to.equal(s.isolation.user.uid);
    } finally {
      await s.cleanup();
    }
  });

  it('M2 write_file and apply_patch never write through a folder a background process of the user keeps swapping for a link to a root-only folder; each call is written in the checkout or refused', async function () {
    if (!isRoot) this.skip();
    this.timeout(20_000);
    const s = await scene();
    // a background process of the user flips docs/ between the folder and a link, atomically
    await s.asUser(`ln -s ${s.rootOnly} docs.link`);
    const flipper = spawn(
      process.execPath,
      [
        '-e',
        `const fs = require('node:fs');
        const flip = (a, b) => { try { fs.renameSync(a, b); } catch {} };
        fs.writeSync(1, 'flipping');
        for (;;) { flip('docs', 'docs.real'); flip('docs.link', 'docs'); flip('docs', 'docs.link'); flip('docs.real', 'docs'); }`,
      ],
      {
        cwd: s.checkout,
        uid: s.isolation.user.uid,
        gid: s.isolation.user.gid,
        stdio: ['ignore', 'pipe', 'ignore'],
      },
    );
    await new Promise((resolve) => flipper.stdout.once('data', resolve));
    try {
      const ctx = await toolContext(s.checkout, { isolation: s.isolation });
      const outputs: string[] = [];
      for (let i = 0; i < 12; i++) {
        const tool =
          i % 2 === 0
            ? await call(ctx, 'write_file', { path: `docs/w${i}.txt`, content: 'x\n' })
            : await call(ctx, 'apply_patch', {
                patch: `--- /dev/null\n+++ b/docs/p${i}.txt\n@@ -0,0 +1 @@\n+x\n`,
              });
        outputs.push(tool.output);
      }
      expect(await readdir(s.rootOnly)).to.deep.equal(['a.txt']);
      for (const output of outputs)
        expect(output).to.match(/^(created docs\/\S+|Error: docs\/\S+: .+)/);
    } finally {
      flipper.kill('SIGKILL');
      await new Promise((resolve) => flipper.once('exit', resolve));
      await s.cleanup();
    }
  });

  it('M1 before the first command the agent writes in its own process and hands the file over', async function () {
    if (!isRoot) this.skip();
    const repo = await makeTempRepo({ 'a.txt': 'a\n' });
    const base = await mkdtemp(path.join(tmpdir(), 'write-before-'));
    try {
      const isolation = await startIsolation({
        security: { isolation: 'required', command_user: 'agent' },
        checkout: repo.dir,
        stateDir: '.mr-agent',
      });
      if (isolation.kind !== 'separate-user') throw new Error('needs a second user');
      const ctx = await toolContext(repo.dir, { isolation });
      const tool = await call(ctx, 'write_file', { path: 'new/file.txt', content: 'x\n' });
      expect(tool.output).to.equal('created new/file.txt (2 bytes)');
      expect((await stat(path.join(repo.dir, 'new/file.txt'))).uid).to.equal(isolation.user.uid);
    } finally {
      await repo.cleanup();
      await rm(base, { recursive: true, force: true });
    }
  });

  it('M2 search_code and list_files after the first command read as the command user: a root-only file or folder in the checkout gives nothing away', async function () {
    if (!isRoot) this.skip();
    const s = await scene();
    try {
      const secret = 'root-only-SECRET-9d2e41';
      await writeFile(path.join(s.checkout, 'docs/only-root.txt'), `${secret}\n`, { mode: 0o600 });
      await mkdir(path.join(s.checkout, 'private'), { mode: 0o700 });
      await writeFile(path.join(s.checkout, 'private/key-name.txt'), `${secret}\n`);
      await s.asUser('echo "visible line" > docs/mine.txt');
      const ctx = await toolContext(s.checkout, { isolation: s.isolation });
      const search = await call(ctx, 'search_code', { query: 'SECRET' });
      expect(search.output).to.equal('no matches for "SECRET"');
      const found = await call(ctx, 'search_code', { query: 'visible', path: 'docs' });
      expect(found.output).to.equal('docs/mine.txt:1: visible line');
      const listed = await call(ctx, 'list_files', { recursive: true });
      expect(listed.output).to.contain('docs/mine.txt').and.contain('private/');
      expect(listed.output).not.to.contain('key-name');
    } finally {
      await s.cleanup();
    }
  });
});
