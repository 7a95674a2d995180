import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { processesOfUser } from '../../src/shell/isolation.ts';
import { makeTempRepo } from '../support/temp-repo.ts';

const isRoot = process.getuid?.() === 0;
const fixture = path.join(import.meta.dirname, 'fixtures', 'isolated-job.ts');

/** The command line of a process, or '' when it is gone. */
function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
  } catch {
    return '';
  }
}

describe('shell: at exit only the job’s own processes of the command user are killed (SPEC M6)', () => {
  it('M6 a process of the command user’s uid started before isolation survives the job; a setsid one started by a command is killed', async function () {
    if (!isRoot) this.skip();
    this.timeout(30_000);
    // a uid of its own, standing for `nobody` running a host's daemon
    const uid = 49_000 + Math.floor(Math.random() * 900);
    const daemon = spawn('sleep', ['1002'], { uid, gid: uid, stdio: 'ignore', detached: true });
    const repo = await makeTempRepo({ 'a.txt': 'a\n' });
    try {
      const job = await execa(
        process.execPath,
        [
          '--import=tsx',
          fixture,
          repo.dir,
          `${uid}:${uid}`,
          'setsid sleep 1003 >/dev/null 2>&1 < /dev/null & echo started',
        ],
        { reject: false },
      );
      expect(job.exitCode, job.stderr).to.equal(0);
      expect(job.stdout).to.contain('started');
      const left = processesOfUser(uid).map(commandLine);
      expect(left).to.deep.equal(['sleep 1002']);
    } finally {
      for (const pid of processesOfUser(uid)) process.kill(pid, 'SIGKILL');
      daemon.unref();
      await repo.cleanup();
    }
  });

  it('M6 a job’s end leaves alone a process another job started as the same command user meanwhile', async function () {
    if (!isRoot) this.skip();
    this.timeout(30_000);
    const uid = 49_000 + Math.floor(Math.random() * 900);
    const repo = await makeTempRepo({ 'a.txt': 'a\n' });
    let other: ReturnType<typeof spawn> | undefined;
    try {
      // the job's command waits for `go`, so the other job's process starts while it runs
      const job = execa(
        process.execPath,
        [
          '--import=tsx',
          fixture,
          repo.dir,
          `${uid}:${uid}`,
          'until [ -e go ]; do sleep 0.02; done; echo done',
        ],
        { reject: false },
      );
      const deadline = Date.now() + 20_000;
      while (processesOfUser(uid).length === 0 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20));
      // another job on the same host: its agent, a process of its own, runs a command as the same user
      const agent = `require('node:child_process').spawn('sleep', ['1004'], { uid: ${uid}, gid: ${uid}, stdio: 'ignore' }); setInterval(() => {}, 1000);`;
      other = spawn(process.execPath, ['-e', agent], { stdio: 'ignore' });
      while (!processesOfUser(uid).map(commandLine).includes('sleep 1004') && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20));
      await writeFile(path.join(repo.dir, 'go'), '');
      const ended = await job;
      expect(ended.exitCode, ended.stderr).to.equal(0);
      expect(ended.stdout).to.contain('done');
      expect(processesOfUser(uid).map(commandLine)).to.deep.equal(['sleep 1004']);
    } finally {
      other?.kill('SIGKILL');
      for (const pid of processesOfUser(uid)) process.kill(pid, 'SIGKILL');
      await repo.cleanup();
    }
  });
});
