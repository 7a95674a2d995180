import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { action, planWith } from '../support/plans.ts';
import { startRunWorld, type RunWorld } from '../hardening/support/run-world.ts';

/** Two commands in the background of the one the model runs: both must be stopped with it. */
const MARK = '27.1828';
const COMMAND = `touch .started && (sleep ${MARK} & sleep ${MARK} & wait)`;

/** Processes still running the marked sleep. */
async function leftovers(): Promise<number> {
  let count = 0;
  for (const pid of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(pid)) continue;
    const cmd = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    const line = cmd.replace(/\0/g, ' ');
    if (line.startsWith('sleep') && line.includes(MARK)) count++;
  }
  return count;
}

async function waitFor(what: string, done: () => boolean): Promise<void> {
  const end = Date.now() + 30_000;
  while (!done()) {
    if (Date.now() > end) throw new Error(`never reached: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * SIGHUP and SIGINT are handled like SIGTERM (issue 18, SPEC O4/M6):
 * `mr-agent run` as a child process, stopped while the model's command runs
 * with two children in the background. The run ends "cancelled" in the note,
 * runs.json and result.json, exits 128 + the signal, and leaves no child.
 */
describe('cli/run signals (mr-agent run as a child process)', function () {
  this.timeout(60_000);
  let world: RunWorld | undefined;
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  for (const [signal, code] of [
    ['SIGHUP', 129],
    ['SIGINT', 130],
  ] as const) {
    it(`O4 ${signal} during a command: "cancelled" everywhere, exit ${code}, no orphaned child`, async () => {
      world = await startRunWorld({
        replies: [
          { purpose: 'planning', json: planWith([action('task_1', 'Run it', 'run_command')]) },
          {
            purpose: 'execution',
            tool_calls: [{ name: 'run_command', arguments: { command: COMMAND } }],
          },
        ],
      });
      const { child, output, exit } = world.spawnChild();
      const dir = world.dir;
      await waitFor('the command under way', () => existsSync(path.join(dir, '.started')));
      // the background sleeps start right after the marker file
      await new Promise((resolve) => setTimeout(resolve, 300));
      child.kill(signal);

      expect(await exit, output().slice(-3000)).to.equal(code);
      const state = await world.state();
      expect(state.progressState).to.equal('cancelled');
      expect(state.runs.map((r) => r.state)).to.deep.equal(['cancelled']);
      expect(state.result?.state).to.equal('cancelled');
      expect(state.result?.status).to.equal('failed');
      expect(await leftovers(), 'children of the command').to.equal(0);
    });
  }
});
