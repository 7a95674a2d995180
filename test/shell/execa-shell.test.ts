import { tmpdir } from 'node:os';
import { expect } from 'chai';
import { ExecaShell } from '../../src/shell/execa-shell.ts';

const env = { PATH: process.env.PATH ?? '' };
const shell = new ExecaShell();

describe('shell: execa adapter timeouts and cancellation (M1)', () => {
  it('stops the whole process group at the timeout, not only `sh`', async () => {
    const result = await shell.run({
      command: 'sleep 5; echo never',
      cwd: tmpdir(),
      env,
      timeoutMs: 100,
      killAfterMs: 200,
    });
    expect(result).to.include({ timedOut: true, failed: true, signal: 'SIGTERM' });
    expect(result.durationMs).to.be.below(3000);
    expect(result.output).not.to.contain('never');
  });

  it('M1 escalates to SIGKILL when the command ignores SIGTERM', async () => {
    const result = await shell.run({
      command: "trap '' TERM; sleep 5",
      cwd: tmpdir(),
      env,
      timeoutMs: 50,
      killAfterMs: 150,
    });
    expect(result).to.include({ timedOut: true, signal: 'SIGKILL' });
    expect(result.durationMs).to.be.below(3000);
  });

  it('stops a command when the run is cancelled', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const result = await shell.run({
      command: 'sleep 5; echo x',
      cwd: tmpdir(),
      env,
      signal: controller.signal,
    });
    expect(result).to.include({ cancelled: true, failed: true, timedOut: false });
    expect(result.durationMs).to.be.below(3000);
  });

  it('issue 18 lets a command that prints more than the output cap run to its end, keeping head and tail', async () => {
    const result = await shell.run({
      command: 'yes | head -c 5000000; sleep 0.3; echo end',
      cwd: tmpdir(),
      env,
      maxOutputBytes: 100_000,
    });
    expect(result).to.include({ outputTruncated: true, exitCode: 0, failed: false });
    // 5 000 004 bytes; kept: 25 000 (head) + 74 998 (tail, from its first whole line)
    expect(result.outputCut).to.deep.equal({ bytes: 4_900_006, lines: 2_450_003 });
    expect(result.output.endsWith('y\ny\nend')).to.equal(true);
  });

  it('reports a command that cannot start', async () => {
    const result = await shell.run({ command: 'true', cwd: '/nonexistent-folder', env });
    expect(result.failed).to.equal(true);
    expect(result.spawnError).to.match(/cwd/);
  });
});
