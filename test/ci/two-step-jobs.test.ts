import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { parseMarker } from '../../src/report/marker.ts';
import { PlanningHistoryStore } from '../../src/history/planning-history.ts';
import { createSilentLogger } from '../../src/log/logger.ts';
import { action, assessment, planWith, reflection } from '../support/plans.ts';
import { FAREWELL, JobWorld } from './job-world.ts';

const planning = {
  purpose: 'planning',
  json: planWith([action('task_1', 'Add farewell()')], ['farewell() exists']),
};
const work = [
  {
    purpose: 'execution',
    tool_calls: [{ name: 'write_file', arguments: { path: 'src/farewell.js', content: FAREWELL } }],
  },
  { purpose: 'execution', content: 'DONE: added farewell()' },
  { purpose: 'completion', json: assessment(true) },
];
const childJobs = (dir: string) =>
  Object.keys(
    parse(readFileSync(path.join(dir, '.mr-agent/child-pipeline.yml'), 'utf8')) as object,
  );

/**
 * The two-step flow (B2) job by job, in-process: `mr-agent ci --step plan`
 * in the plan job, `--step run` in the child pipeline's job with the plan
 * job's `.mr-agent/` artifacts, over HTTP against the stand-in.
 */
describe('ci/two-step jobs (plan job, then the child pipeline job)', function () {
  this.timeout(60_000);
  let world: JobWorld;

  beforeEach(async () => {
    world = await JobWorld.start();
  });
  afterEach(async () => {
    await world.close();
  });

  it('B2/H1 the plan job plans and hands over; the run job carries out the plan and finishes the same note', async () => {
    const plan = await world.job({
      step: 'plan',
      replies: [planning],
      variables: world.bridgeVariables('run', 'add a farewell function'),
    });
    expect(plan.code, plan.stderr).to.equal(0);
    expect(childJobs(plan.dir)).to.deep.equal(['stages', 'mr-agent-node']);
    const planned = world.progressNotes();
    expect(planned).to.have.length(1);
    expect(parseMarker(planned[0]!.body)?.state).to.equal('running');
    expect(planned[0]!.body).to.contain('continues in the node environment');

    const run = await world.job({
      step: 'run',
      replies: work,
      variables: { CI_PIPELINE_SOURCE: 'parent_pipeline' },
      artifactsFrom: plan,
    });

    expect(run.code, run.stderr).to.equal(0);
    run.llm.assertAllUsed();
    const notes = world.progressNotes();
    expect(notes.map((n) => n.id)).to.deep.equal([planned[0]!.id]);
    expect(parseMarker(notes[0]!.body)).to.include({
      state: 'complete',
      task: `job-${plan.jobId}`,
    });
    expect(
      world.git(world.s.project.repoDir, 'show', `${world.branchHead()}:src/farewell.js`),
    ).to.contain('Bye');
  });

  it('A1/B2 `/agent plan` ends in the plan job (a child pipeline that only says why); `/agent approve` hands the posted plan over without planning', async () => {
    const planOnly = await world.job({
      step: 'plan',
      replies: [planning],
      variables: world.bridgeVariables('plan', 'add a farewell function'),
    });
    expect(planOnly.code, planOnly.stderr).to.equal(0);
    expect(childJobs(planOnly.dir)).to.deep.equal(['stages', 'mr-agent-nothing-to-do']);
    expect(parseMarker(world.progressNotes()[0]!.body)?.state).to.equal('complete');

    const approve = await world.job({
      step: 'plan',
      replies: [],
      variables: world.bridgeVariables('approve', ''),
    });
    expect(approve.code, approve.stderr).to.equal(0);
    expect(approve.llm.requests).to.have.length(0);
    expect(childJobs(approve.dir)).to.deep.equal(['stages', 'mr-agent-node']);

    const run = await world.job({
      step: 'run',
      replies: work,
      variables: { CI_PIPELINE_SOURCE: 'parent_pipeline' },
      artifactsFrom: approve,
    });

    expect(run.code, run.stderr).to.equal(0);
    const notes = world.progressNotes();
    expect(notes.map((n) => parseMarker(n.body)?.state)).to.deep.equal(['complete', 'complete']);
    expect(notes[1]!.body).to.contain('### ✅ Done · add a farewell function');
    expect(
      world.git(world.s.project.repoDir, 'show', `${world.branchHead()}:src/farewell.js`),
    ).to.contain('Bye');
  });

  it("seed 001 §7.3 the run job of a two-step `/agent retry` keeps the reused plan's revisions and reflections: its reflection sees the earlier attempts", async () => {
    const failed = await world.job({
      replies: [planning, { purpose: 'execution', fault: 'bad_request', times: 0 }],
      variables: world.bridgeVariables('run', 'add a farewell function'),
    });
    expect(failed.code).to.equal(1);
    // the failed run had reflected on its attempt once
    const store = new PlanningHistoryStore({
      directory: path.join(failed.dir, '.mr-agent/planning_history'),
      taskId: `job-${failed.jobId}`,
      logger: createSilentLogger(),
    });
    const earlier = reflection('partial');
    earlier.reflection.evaluation = 'The farewell module was written to the wrong folder.';
    await store.saveReflection(earlier);
    world.keepArtifacts(failed.jobId, failed.dir);

    const plan = await world.job({
      step: 'plan',
      replies: [],
      variables: world.bridgeVariables('retry', ''),
    });
    expect(plan.code, plan.stderr).to.equal(0);
    expect(plan.llm.requests).to.have.length(0);

    const run = await world.job({
      step: 'run',
      replies: [
        work[0],
        work[1],
        {
          purpose: 'reflection',
          json: reflection('success'),
          contains: [
            `Earlier attempts with this plan (job-${failed.jobId})`,
            'The farewell module was written to the wrong folder.',
          ],
        },
        work[2],
      ],
      variables: { CI_PIPELINE_SOURCE: 'parent_pipeline', REFLECTION_INTERVAL: '1' },
      artifactsFrom: plan,
    });

    expect(run.code, run.stderr).to.equal(0);
    run.llm.assertAllUsed();
  });
});
