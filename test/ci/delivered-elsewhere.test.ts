import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseMarker } from '../../src/report/marker.ts';
import { EXIT_DELIVERED_ELSEWHERE } from '../../src/errors/exit-code.ts';
import { action, planWith } from '../support/plans.ts';
import { FAREWELL, FAREWELL_WORK, JobWorld } from './job-world.ts';

const replies = [
  { purpose: 'planning', json: planWith([action('task_1', 'Add farewell()')], ['it exists']) },
  ...FAREWELL_WORK,
];

/**
 * Issue 18 §2 done-when, through `mr-agent ci` against the stand-in: a
 * protected source branch ends with the change on `mr-agent/<iid>-<job>` and
 * a merge request into the source branch; the final note says where the
 * change is and why, and the job exits 3 ("delivered elsewhere").
 */
describe('ci: a change that cannot go to its branch is delivered elsewhere (issue 18 §2, H3)', function () {
  this.timeout(90_000);
  let world: JobWorld;
  beforeEach(async () => {
    world = await JobWorld.start();
  });
  afterEach(() => world.close());

  it('issue 18 done-when: a protected source branch → mr-agent/<iid>-<job> + an MR into it, the final note says so, exit 3', async () => {
    const source = world.s.mergeRequest.sourceBranch;
    world.standIn.model.protectBranch(world.s.project, source);
    const before = world.branchHead();

    const job = await world.job({
      replies,
      variables: {
        CI_PIPELINE_SOURCE: 'web',
        MR_AGENT_TASK: 'add a farewell function',
        MR_AGENT_MR_IID: String(world.s.mergeRequest.iid),
      },
    });

    expect(job.code, job.stderr).to.equal(EXIT_DELIVERED_ELSEWHERE);
    const branch = `mr-agent/${world.s.mergeRequest.iid}-${job.jobId}`;
    expect(world.branchHead(), 'the protected branch is untouched').to.equal(before);
    expect(world.git(world.s.project.repoDir, 'show', `${branch}:src/farewell.js`)).to.equal(
      FAREWELL.trimEnd(),
    );
    const mr = world.standIn.model.mergeRequests.find((m) => m.sourceBranch === branch);
    expect(mr?.targetBranch).to.equal(source);

    const bodies = world.standIn.model.notes
      .filter((n) => n.authorId === world.s.bot.id)
      .map((n) => n.body);
    const summary = bodies.find((b) => parseMarker(b)?.kind === 'summary')!;
    expect(summary).to.match(
      new RegExp(
        `Pushed [0-9a-f]{7,} to \`${branch}\`, not to \`${source}\`: \`${source}\` is protected in acme/app`,
      ),
    );
    expect(summary).to.contain(`/-/merge_requests/${mr!.iid}`);
    expect(parseMarker(world.progressNotes()[0]!.body)?.state).to.equal('complete');
    expect(existsSync(path.join(job.dir, '.mr-agent/patch.diff'))).to.equal(true);
    const result = JSON.parse(readFileSync(path.join(job.dir, '.mr-agent/result.json'), 'utf8'));
    expect(result.exit_code ?? result.exitCode).to.equal(EXIT_DELIVERED_ELSEWHERE);
  });
});
