import { expect } from 'chai';
import { rm } from 'node:fs/promises';
import { runDemo } from '../../src/demo/run-demo.ts';

describe('demo/stop: a stop asked for while the stage is being set', function () {
  this.timeout(60_000);

  it('M6 the demo stopped before its job starts (Ctrl-C, a closed output) ends the job as cancelled', async () => {
    const controller = new AbortController();
    const result = await runDemo({
      // the first line of the narration is written while the stage is set: stop then
      out: { write: () => controller.abort(new Error('received SIGPIPE')) },
      live: false,
      color: false,
      hostEnv: { PATH: process.env.PATH, HOME: process.env.HOME },
      keep: true,
      signal: controller.signal,
    });
    try {
      expect(result.job.outcome.reason).to.equal('cancelled');
      expect(result.exitCode).to.not.equal(0);
    } finally {
      await rm(result.dir, { recursive: true, force: true });
    }
  });
});
