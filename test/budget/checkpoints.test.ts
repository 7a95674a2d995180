import { expect } from 'chai';
import { Checkpoint } from '../../src/core/checkpoint.ts';
import { action, assessment, planWith } from '../support/plans.ts';
import { JobWorld } from '../ci/job-world.ts';

const FILE = (n: number) => `export const step${n} = ${n};\n`;
const PATHS = ['src/farewell.js', 'src/step2.js', 'src/step3.js'];
const planning = {
  purpose: 'planning',
  json: planWith(
    [
      action('task_1', 'Add step 1'),
      action('task_2', 'Add step 2'),
      action('task_3', 'Add step 3'),
    ],
    ['the steps exist'],
  ),
};
const work = [1, 2, 3].flatMap((n) => [
  {
    purpose: 'execution',
    tool_calls: [{ name: 'write_file', arguments: { path: PATHS[n - 1], content: FILE(n) } }],
  },
  { purpose: 'execution', content: `DONE: added step ${n}` },
]);
const replies = [planning, ...work, { purpose: 'completion', json: assessment(true) }];

async function waitFor(what: string, check: () => boolean, limitMs = 45_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Checkpoints over whole `mr-agent ci` jobs: hidden refs on the stand-in's
 * git server, pushed with the bot's token over smart HTTP.
 */
describe('checkpoints that survive the job (issue 31)', function () {
  this.timeout(120_000);
  let world: JobWorld;

  beforeEach(async () => {
    world = await JobWorld.start();
  });
  afterEach(async () => {
    await world.close();
  });

  const checkpointRefs = () =>
    world
      .git(world.s.project.repoDir, 'for-each-ref', '--format=%(refname)', 'refs/mr-agent/')
      .split('\n')
      .filter(Boolean);
  const read = (ref: string, file: string) =>
    world.git(world.s.project.repoDir, 'cat-file', 'blob', `${ref}:${file}`);

  it('after an action the checkpoint is on the remote under refs/mr-agent/mr-<iid>/<run-id>, and it survives a SIGKILL of the job', async () => {
    const prefix = `refs/mr-agent/mr-${world.s.mergeRequest.iid}/`;
    const job = await world.job({
      replies,
      variables: world.bridgeVariables('run', 'add three steps'),
      childProcess: true,
      whileRunning: async ({ signal }) => {
        await waitFor('a checkpoint ref', () => checkpointRefs().length > 0);
        signal('SIGKILL');
      },
    });
    expect(job.code).to.not.equal(0);
    const refs = checkpointRefs();
    expect(refs).to.have.length(1);
    expect(refs[0]).to.equal(`${prefix}job-${job.jobId}`);
    const checkpoint = Checkpoint.parse(JSON.parse(read(refs[0]!, 'checkpoint.json')));
    expect(checkpoint.target).to.equal(`mr-${world.s.mergeRequest.iid}`);
    expect(checkpoint.completed[0]).to.include({ task_id: 'task_1', status: 'success' });
    expect(checkpoint.plan.action_plan.actions).to.have.length(3);
    expect(checkpoint.ended).to.equal(undefined);
    expect(checkpoint.base_commit).to.equal(world.branchHead());
    expect(read(refs[0]!, 'change.patch')).to.include('+++ b/src/farewell.js');
    // a ref is no branch: the merge request's branch is untouched
    expect(world.git(world.s.project.repoDir, 'branch', '--list')).to.not.include('mr-agent');
  });

  it('a run that completes removes its checkpoint', async () => {
    const job = await world.job({
      replies,
      variables: world.bridgeVariables('run', 'add three steps'),
    });
    expect(job.code, job.stderr.slice(-2000)).to.equal(0);
    expect(job.stderr + job.stdout).to.include('checkpoint saved');
    expect(checkpointRefs()).to.deep.equal([]);
  });

  it('concurrent runs on one merge request keep their checkpoints apart (the run id in the ref)', async () => {
    const one = world.job({
      replies,
      variables: {
        ...world.bridgeVariables('run', 'add three steps'),
        MR_AGENT_BUDGET_TOKENS: '9000',
      },
    });
    const two = world.job({
      replies,
      variables: {
        ...world.bridgeVariables('run', 'add three steps'),
        MR_AGENT_BUDGET_TOKENS: '9000',
      },
    });
    const jobs = await Promise.all([one, two]);
    const refs = checkpointRefs();
    expect(refs).to.have.length(2);
    for (const job of jobs) {
      const ref = refs.find((r) => r.endsWith(`/job-${job.jobId}`));
      expect(ref, refs.join(', ')).to.be.a('string');
      const checkpoint = Checkpoint.parse(JSON.parse(read(ref!, 'checkpoint.json')));
      expect(checkpoint.run_id).to.equal(`job-${job.jobId}`);
      expect(checkpoint.ended).to.equal('budget_exhausted');
    }
  });
});
