import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
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
});
