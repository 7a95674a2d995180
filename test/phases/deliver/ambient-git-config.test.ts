import { expect } from 'chai';
import { shellCheckout } from '../../../src/shell/checkout-port.ts';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GitLabNoteTarget } from '../../../src/gitlab/note-target.ts';
import type { Project } from '../../../src/core/gitlab-port.ts';
import { createMemoryLogger } from '../../../src/log/logger.ts';
import { Redactor } from '../../../src/log/redact.ts';
import { deliver, type DeliveryInput } from '../../../src/phases/deliver/deliver.ts';
import { startWorld, type World } from '../../gitlab/world.ts';
import { ExecaShell } from '../../../src/shell/execa-shell.ts';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/**
 * Issue 19 item 4: a model-written `~/.gitconfig` (its commands run as the
 * same user) must not steer delivery's authenticated push. The planted HOME
 * enables the `ext` transport and rewrites the GitLab remote to a script, or
 * sends git through a proxy that records the headers it receives.
 */
describe('phases/deliver: git with no ambient config (issue 19 "a planted ~/.gitconfig never runs")', () => {
  let w: World;
  let work: string;
  let project: Project;
  let home: string;
  let canary: string;
  let dump: string;

  beforeEach(async () => {
    w = await startWorld({}, { gitHttp: true, pathEnv: process.env.PATH });
    project = await w.gitlab.getProject(w.s.project.id);
    work = await mkdtemp(path.join(tmpdir(), 'deliver-ambient-'));
    home = path.join(work, 'home');
    await mkdir(home);
    canary = path.join(work, 'canary');
    dump = path.join(work, 'dump');
  });
  afterEach(async () => {
    await w.close();
    await rm(work, { recursive: true, force: true });
  });

  function plant(...pairs: [string, string][]): void {
    for (const [key, value] of pairs)
      git(work, 'config', '--file', path.join(home, '.gitconfig'), key, value);
  }

  async function changedCheckout(): Promise<string> {
    const dir = path.join(work, 'checkout');
    git(
      work,
      'clone',
      '--quiet',
      '--branch',
      'feature/greeting',
      `file://${w.s.project.repoDir}`,
      dir,
    );
    await writeFile(path.join(dir, 'farewell.txt'), 'bye\n');
    return dir;
  }

  function input(repoDir: string, hostEnv: Record<string, string | undefined>): DeliveryInput {
    const redactor = new Redactor();
    return {
      shell: new ExecaShell(),
      checkout: shellCheckout,
      repoDir,
      gitlab: w.gitlab,
      project,
      target: { kind: 'branch', branch: 'feature/greeting' },
      notes: new GitLabNoteTarget(w.gitlab, project.id, { type: 'merge_request', iid: 1 }),
      token: w.s.botToken.value,
      hostEnv,
      commit: {
        title: 'Add farewell',
        body: '',
        author: { name: 'mr-agent', email: 'mr-agent@example.invalid' },
      },
      branchPrefix: 'mr-agent/',
      marker: { job: '77', pipeline: '7', task: 't1' },
      redactor,
      logger: createMemoryLogger({ redactor, level: 'debug', format: 'json' }).logger,
    };
  }

  it('issue 19: an ext:: insteadOf rewrite of the GitLab remote in ~/.gitconfig never runs during the push, and the push still lands', async () => {
    const remote = project.httpUrlToRepo.replace(/\/[^/]+\/[^/]+\.git$/, '/');
    plant(
      ['protocol.ext.allow', 'always'],
      [`url.ext::sh -c env% >>${dump};touch% ${canary}.insteadOf`, remote],
      ['core.hooksPath', path.join(work, 'hooks')],
      ['core.fsmonitor', path.join(work, 'hooks', 'fsmonitor')],
    );
    await mkdir(path.join(work, 'hooks'));
    const hook = `#!/bin/sh\nenv >> ${dump}\ntouch ${canary}\n`;
    for (const name of [
      'pre-push',
      'pre-commit',
      'post-commit',
      'reference-transaction',
      'fsmonitor',
    ])
      await writeFile(path.join(work, 'hooks', name), hook, { mode: 0o755 });
    const dir = await changedCheckout();

    const result = await deliver(
      input(dir, { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config') }),
    ).catch((e: unknown) => e);

    expect(existsSync(canary), 'the planted script ran').to.equal(false);
    expect(existsSync(dump), 'the planted script saw the environment').to.equal(false);
    expect(result).to.include({ status: 'pushed', branch: 'feature/greeting' });
    expect(git(w.s.project.repoDir, 'log', '-1', '--format=%s', 'feature/greeting')).to.equal(
      'Add farewell',
    );
  });

  it('issue 19: a proxy set in ~/.gitconfig never receives the Authorization header', async () => {
    const seen: string[] = [];
    const proxy: Server = createServer((req, res) => {
      seen.push(JSON.stringify(req.headers));
      res.writeHead(502).end();
    });
    proxy.on('connect', (req, socket) => {
      seen.push(JSON.stringify(req.headers));
      socket.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const port = (proxy.address() as AddressInfo).port;
      plant(['http.proxy', `http://127.0.0.1:${port}`]);
      const dir = await changedCheckout();

      const result = await deliver(input(dir, { ...process.env, HOME: home })).catch(
        (e: unknown) => e,
      );

      const token = w.s.botToken.value;
      const basic = Buffer.from(`oauth2:${token}`).toString('base64');
      expect(seen.join('\n')).not.to.contain(basic);
      expect(seen, 'the proxy was asked').to.deep.equal([]);
      expect(result).to.include({ status: 'pushed' });
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  it('issue 19: the GitLab token never reaches a credential helper or askpass program the host config names', async () => {
    plant(
      ['credential.helper', `!sh -c 'env >> ${dump}; touch ${canary}'`],
      ['core.askPass', path.join(work, 'askpass')],
    );
    await writeFile(path.join(work, 'askpass'), `#!/bin/sh\ntouch ${canary}\necho x\n`, {
      mode: 0o755,
    });
    const dir = await changedCheckout();

    // a refused token makes git look for other credentials
    const refused = { ...input(dir, { ...process.env, HOME: home }), token: 'glpat-refused-token' };
    await deliver(refused).catch((e: unknown) => e);

    expect(existsSync(canary)).to.equal(false);
    const text = existsSync(dump) ? await readFile(dump, 'utf8') : '';
    expect(text).not.to.contain('glpat-refused-token');
  });
});
