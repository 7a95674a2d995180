import { expect } from 'chai';
import { parseMarker } from '../../src/report/marker.ts';
import type { GitLabStandIn, Scenario } from '../../src/testkit/gitlab-server/index.ts';
import { runCli } from '../cli/helpers.ts';
import { postPausedRun } from '../support/paused-run.ts';
import { startCiJobCheckout, type CiJobCheckout } from '../support/ci-job-checkout.ts';

/**
 * `/agent status` answered by the job itself (A3 TRIGGER_PAYLOAD, SPEC A6,
 * issue 23): a whole `mr-agent ci` job over HTTP against the GitLab stand-in.
 */
describe('A6 /agent status in a TRIGGER_PAYLOAD job (issue 23)', function () {
  this.timeout(60_000);
  let world: CiJobCheckout;
  let standIn: GitLabStandIn;
  let s: Scenario;

  beforeEach(async () => {
    world = await startCiJobCheckout({ tempPrefix: 'mr-agent-status-job-' });
    ({ standIn, s } = world);
  });
  afterEach(() => world.close());

  function jobEnv(payload: string): Record<string, string> {
    return world.jobVariables({ TRIGGER_PAYLOAD: payload });
  }

  function payloadFile(body: string) {
    return world.commentPayload(body);
  }

  it("issue 23 done-when: /agent status during a paused run shows 'Waiting for your answer' with the link (job path)", async () => {
    const { pipeline } = await standIn.model.createPipeline({
      project: s.project,
      ref: 'feature/greeting',
      source: 'trigger',
      status: 'failed',
      userId: s.maintainer.id,
      variables: { MR_AGENT_MR_IID: String(s.mergeRequest.iid), MR_AGENT_COMMAND: 'run' },
    });
    const mrUrl = `${standIn.url}/${s.project.path}/-/merge_requests/${s.mergeRequest.iid}`;
    const run = postPausedRun({
      standIn,
      on: s.mergeRequest,
      botId: s.bot.id,
      mrUrl,
      pipelineId: pipeline.id,
      jobId: 4711,
    });
    const { note, file } = payloadFile('/agent status');

    const result = await runCli(['ci'], { env: jobEnv(file) });

    expect(result.code, result.stderr).to.equal(0);
    const replies = standIn.model.notes.filter(
      (n) => n.discussionId === note.discussionId && n.id !== note.id,
    );
    expect(replies).to.have.length(1);
    const body = replies[0]!.body;
    expect(parseMarker(body)).to.include({ kind: 'reply', state: 'awaiting_answer' });
    expect(body).to.include('Waiting for your answer');
    expect(body).to.include(`[Open the question](${run.questionUrl})`);
    expect(body).to.include(`[progress note](${run.progressUrl})`);
    expect(body).to.include(`[pipeline #${pipeline.id}](`);
    expect(body).to.include('1 of 3 steps done');
    // the job's own pipeline is not the run it reports on
    expect(body).not.to.include('pipeline #900');
    // the notes come from the job's one listing of the threads
    expect(standIn.requests.byRoute()['GET /projects/:id/merge_requests/:iid/notes']).to.equal(
      undefined,
    );
  });
});
