import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseMarker } from '../../src/report/marker.ts';
import { FAREWELL_RUN, JobWorld } from './job-world.ts';

/** The job's grace period after a termination signal (the default of `mr-agent ci`). */
const GRACE_MS = 8000;
/** Room for the process to stop once its grace period is over (loaded machine). */
const SLACK_MS = 2500;

async function waitFor(what: string, done: () => boolean, limitMs = 45_000): Promise<void> {
  const end = Date.now() + limitMs;
  while (!done()) {
    if (Date.now() > end) throw new Error(`never reached: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function stateFiles(dir: string) {
  const read = (name: string) => {
    const file = path.join(dir, '.mr-agent', name);
    return existsSync(file)
      ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>)
      : undefined;
  };
  const runs = read('runs.json') as { runs: { state: string }[] } | undefined;
  return {
    result: read('result.json') as
      { status?: string; state?: string; exit_code?: number } | undefined,
    runStates: (runs?.runs ?? []).map((r) => r.state),
  };
}

/**
 * Cancellation is final (issue 18, SPEC O4/M6): `mr-agent ci` as a child
 * process gets SIGTERM or SIGHUP while delivery waits for GitLab. Nothing is
 * pushed, nothing is posted as complete, the note, runs.json and result.json
 * say "cancelled", and the process exits within its grace period whatever
 * GitLab does.
 */
describe('ci cancellation (mr-agent ci as a child process, signals during delivery)', function () {
  this.timeout(90_000);
  let world: JobWorld;

  beforeEach(async () => {
    world = await JobWorld.start();
  });
  afterEach(async () => {
    world.standIn.faults.clear();
    await world.close();
  });

  const deliveryWaits = () =>
    world.standIn.requests.entries.some(
      (e) => e.status === 0 && e.path.includes('protected_branches'),
    );

  it('O4/M6 SIGTERM while GitLab keeps delivery waiting: nothing pushed, "cancelled" everywhere, exit 143 within the grace period', async () => {
    const before = world.branchHead();
    world.standIn.faults.add({ method: 'GET', path: /protected_branches/, hang: true });
    let sent = 0;
    const job = await world.job({
      replies: FAREWELL_RUN,
      variables: world.bridgeVariables('run', 'add a farewell function'),
      childProcess: true,
      whileRunning: async ({ signal }) => {
        await waitFor('delivery waiting for GitLab', deliveryWaits);
        sent = Date.now();
        signal('SIGTERM');
      },
    });
    const elapsed = Date.now() - sent;

    expect(job.code, job.stderr.slice(-3000)).to.equal(143);
    expect(elapsed).to.be.below(GRACE_MS + SLACK_MS);
    expect(world.branchHead(), 'nothing pushed').to.equal(before);
    const notes = world.standIn.model.notes.filter((n) => n.authorId === world.s.bot.id);
    expect(notes.map((n) => parseMarker(n.body)?.state)).not.to.include('complete');
    expect(parseMarker(world.progressNotes()[0]!.body)?.state).to.equal('cancelled');
    const files = stateFiles(job.dir);
    expect(files.result?.state).to.equal('cancelled');
    expect(files.result?.status).to.equal('failed');
    expect(files.runStates).to.deep.equal(['cancelled']);
  });

  it('O4 SIGHUP while GitLab stops answering altogether: nothing pushed, runs.json and result.json "cancelled", exit 129 within the grace period', async () => {
    const before = world.branchHead();
    world.standIn.faults.add({ method: 'GET', path: /protected_branches/, hang: true });
    let sent = 0;
    const job = await world.job({
      replies: FAREWELL_RUN,
      variables: world.bridgeVariables('run', 'add a farewell function'),
      childProcess: true,
      whileRunning: async ({ signal }) => {
        await waitFor('delivery waiting for GitLab', deliveryWaits);
        // from now on GitLab answers nothing at all: note edits hang too
        world.standIn.faults.add({ hang: true, times: Infinity });
        sent = Date.now();
        signal('SIGHUP');
      },
    });
    const elapsed = Date.now() - sent;

    expect(job.code, job.stderr.slice(-3000)).to.equal(129);
    expect(elapsed).to.be.below(GRACE_MS + SLACK_MS);
    expect(world.branchHead(), 'nothing pushed').to.equal(before);
    const files = stateFiles(job.dir);
    expect(files.result?.state).to.equal('cancelled');
    expect(files.result?.status).to.equal('failed');
    expect(files.runStates).to.deep.equal(['cancelled']);
    expect(job.stderr).to.contain('grace period');
  });
});
