import { expect } from 'chai';
import { shellCheckout } from '../../src/shell/checkout-port.ts';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CommandRequest, Shell } from '../../src/core/shell-port.ts';
import { createMemoryLogger } from '../../src/log/logger.ts';
import { Redactor } from '../../src/log/redact.ts';
import { deliver } from '../../src/phases/deliver/deliver.ts';
import { workingDiff } from '../../src/phases/review/diff.ts';
import { ExecaShell } from '../../src/shell/execa-shell.ts';
import { startDeliveryWorld, type DeliveryWorld } from './deliver/delivery-world.ts';

/** The real shell, with every command line it is asked to run kept. */
function recordingShell(): Shell & { lines: string[] } {
  const real = new ExecaShell();
  const lines: string[] = [];
  return {
    lines,
    run: (request: CommandRequest) => {
      lines.push(request.command);
      return real.run(request);
    },
  };
}

describe('phases: git runs through the shell the run gives them', () => {
  let world: DeliveryWorld;
  const dirs: string[] = [];
  before(async () => {
    world = await startDeliveryWorld();
  });
  after(async () => {
    await world.close();
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  });

  it('delivery commits and pushes through the run’s shell, not a shell of its own', async () => {
    const dir = world.checkout('feature/greeting');
    await writeFile(path.join(dir, 'src/farewell.js'), 'export const farewell = 1;\n');
    const shell = recordingShell();
    const result = await deliver({
      ...world.input(dir, await world.mrTarget()),
      shell,
    });
    expect(result.status).to.equal('pushed');
    const git = shell.lines.filter((line) => line.startsWith('exec git '));
    expect(git.some((line) => / commit /.test(line))).to.equal(true);
    expect(git.some((line) => / push /.test(line))).to.equal(true);
  });

  it('the review diff reads git through the run’s shell', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'run-shell-'));
    dirs.push(dir);
    execFileSync('git', ['init', '-q', dir]);
    await writeFile(path.join(dir, 'a.txt'), 'a\n');
    const shell = recordingShell();
    const redactor = new Redactor();
    const diff = await workingDiff({
      checkout: shellCheckout,
      shell,
      repoDir: dir,
      stateDir: '.mr-agent',
      hostEnv: { PATH: process.env.PATH },
      redactor,
      logger: createMemoryLogger({ redactor }).logger,
      maxChars: 10_000,
      changedFiles: [],
    });
    expect(diff.git).to.equal(true);
    expect(shell.lines.filter((line) => /^exec git .* ls-files /.test(line))).to.have.length(1);
  });
});
