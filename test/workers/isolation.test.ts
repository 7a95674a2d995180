import { expect } from 'chai';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { systemClock } from '../../src/core/clock.ts';
import { createSilentLogger } from '../../src/log/logger.ts';
import { ExecaShell } from '../../src/shell/execa-shell.ts';
import { createCliWorker } from '../../src/workers/cli-worker.ts';
import { giveCredentialFiles } from '../../src/workers/credential-files.ts';
import { CLI_WORKERS } from '../../src/workers/registry.ts';

describe('workers: a worker CLI run as the command user keeps its login (issue 19 §3)', () => {
  it("copies the login files under the agent's home into the user's private home, owned by the user; others stay (issue 19 §3)", async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'mr-agent-credentials-'));
    try {
      const home = path.join(root, 'agent-home');
      const userHome = path.join(root, 'user-home');
      await mkdir(path.join(home, '.codex'), { recursive: true });
      await mkdir(userHome);
      await writeFile(path.join(home, '.codex', 'auth.json'), '{"token":"x"}', { mode: 0o600 });
      const elsewhere = path.join(root, 'elsewhere.json');
      await writeFile(elsewhere, '{}');
      // as root the user is nobody; elsewhere a user can only give files to itself
      const uid = process.getuid?.() === 0 ? 65534 : (process.getuid?.() ?? 0);
      const gid = process.getuid?.() === 0 ? 65534 : (process.getgid?.() ?? 0);
      const user = { name: 'u', uid, gid, home: userHome, checkout: root, keep: [] };

      await giveCredentialFiles(
        [path.join(home, '.codex', 'auth.json'), path.join(home, '.gemini', 'missing'), elsewhere],
        home,
        user,
      );

      const copied = path.join(userHome, '.codex', 'auth.json');
      expect(await readFile(copied, 'utf8')).to.equal('{"token":"x"}');
      const info = await stat(copied);
      expect([info.uid, info.gid, info.mode & 0o777]).to.deep.equal([uid, gid, 0o600]);
      expect((await stat(path.join(userHome, '.codex'))).uid).to.equal(uid);
      expect(await stat(path.join(userHome, 'elsewhere.json')).catch(() => 'absent')).to.equal(
        'absent',
      );
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe('workers: a worker CLI without isolation (issue 19 §3)', () => {
  it('is refused, saying why, and never starts when commands are not isolated and the risk is not accepted (issue 19 §3)', async () => {
    const repo = await mkdtemp(path.join(tmpdir(), 'mr-agent-refused-worker-'));
    try {
      await writeFile(path.join(repo, 'codex'), '#!/bin/sh\ntouch "$0.ran"\n', { mode: 0o755 });
      const worker = createCliWorker(CLI_WORKERS['codex-cli'], {
        shell: new ExecaShell(),
        clock: systemClock,
        logger: createSilentLogger(),
        sandbox: 'outer',
        isolation: {
          kind: 'same-user',
          reason: 'mr-agent is not running as root (uid 1000)',
          accepted: false,
        },
      });
      const record = await worker.runWorker({
        prompt: 'do it',
        repoDir: repo,
        // a "codex" that would leave a canary, were it started
        env: { PATH: `${repo}:/usr/bin:/bin`, CODEX_API_KEY: 'k' },
        maxRunTimeSec: 30,
      });
      expect(record.error).to.contain('commands are not run: mr-agent is not running as root');
      expect(record.exitCode).to.equal(undefined);
      expect(await stat(path.join(repo, 'codex.ran')).catch(() => 'absent')).to.equal('absent');
    } finally {
      await rm(repo, { recursive: true, force: true });
    }
  });
});
