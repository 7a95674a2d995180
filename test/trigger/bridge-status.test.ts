import { expect } from 'chai';
import { parseMarker } from '../../src/report/marker.ts';
import { postPausedRun } from '../support/paused-run.ts';
import { startBridgeWorld, type BridgeWorld } from './bridge-world.ts';
import { deliver } from './http-client.ts';

/**
 * `/agent status` (SPEC A6, issue 23) over real HTTP: the bridge reads the
 * newest progress note's marker and the agent pipeline, and replies with the
 * state, phase, steps, the ❓ note, and the pipeline, job and progress links.
 */
describe('A6 /agent status reports the run, not only its pipeline (bridge, issue 23)', function () {
  this.timeout(20_000);
  let w: BridgeWorld;

  beforeEach(async () => {
    w = await startBridgeWorld();
  });
  afterEach(() => w.close());

  const url = () => w.bridges[0]!.url;
  const mrUrl = () =>
    `${w.standIn.url}/${w.s.project.path}/-/merge_requests/${w.s.mergeRequest.iid}`;

  async function startRun(): Promise<number> {
    await deliver(url(), w.comment(w.s.mergeRequest, w.s.developer, '/agent fix it').hook);
    await w.idle();
    const [pipeline] = w.triggerPipelines();
    // the job stopped on its question: GitLab shows the pipeline as ended
    w.standIn.model.setPipelineStatus(pipeline!.id, 'failed');
    return pipeline!.id;
  }

  async function askStatus(): Promise<string> {
    const status = w.comment(w.s.mergeRequest, w.s.developer, '/agent status');
    await deliver(url(), status.hook);
    await w.idle();
    const replies = w.standIn.model.notes.filter(
      (n) => n.discussionId === status.note.discussionId && n.id !== status.note.id,
    );
    expect(replies).to.have.length(1);
    return replies[0]!.body;
  }

  it("issue 23 done-when: /agent status during a paused run shows 'Waiting for your answer' with the link to the ❓ note", async () => {
    const pipelineId = await startRun();
    const run = postPausedRun({
      standIn: w.standIn,
      on: w.s.mergeRequest,
      botId: w.s.bot.id,
      mrUrl: mrUrl(),
      pipelineId,
      jobId: 4711,
    });
    const body = await askStatus();
    expect(body).to.include('Waiting for your answer');
    expect(body).not.to.include('**failed**');
    expect(body).to.include(`[Open the question](${run.questionUrl})`);
    expect(body).to.include(`[progress note](${run.progressUrl})`);
    expect(body).to.include(`[job](${w.standIn.url}/${w.s.project.path}/-/jobs/4711)`);
    expect(body).to.include(`[pipeline #${pipelineId}](`);
    expect(body).to.include('Planning').and.include('1 of 3 steps done');
    expect(parseMarker(body)).to.include({ kind: 'reply', state: 'awaiting_answer' });
    expect(w.standIn.model.quickActions).to.deep.equal([]);
  });

  it('issue 23: a progress note with an older marker (no phase, steps or question) still gives the state and the ❓ link', async () => {
    const pipelineId = await startRun();
    const run = postPausedRun({
      standIn: w.standIn,
      on: w.s.mergeRequest,
      botId: w.s.bot.id,
      mrUrl: mrUrl(),
      pipelineId,
      jobId: 4711,
      oldMarker: true,
    });
    expect(parseMarker(run.progress.body)).to.not.have.property('question');
    const body = await askStatus();
    expect(body).to.include('Waiting for your answer');
    expect(body).to.include(`[Open the question](${run.questionUrl})`);
    expect(body).not.to.include('steps done');
  });

  it('issue 23: a Japanese run is reported in Japanese (notes.language auto)', async () => {
    const pipelineId = await startRun();
    postPausedRun({
      standIn: w.standIn,
      on: w.s.mergeRequest,
      botId: w.s.bot.id,
      mrUrl: mrUrl(),
      pipelineId,
      jobId: 4711,
      language: 'ja',
    });
    const body = await askStatus();
    expect(body).to.include('回答待ち').and.include('質問を開く');
  });

  it('A6 a progress note still saying running whose pipeline ended is reported interrupted', async () => {
    const pipelineId = await startRun();
    w.standIn.model.addNote({
      on: w.s.mergeRequest,
      authorId: w.s.bot.id,
      body: `<!-- mr-agent:progress job=4711 pipeline=${pipelineId} task=t state=running phase=execution done=2 total=5 -->\n### ⏳ Working on it`,
    });
    const body = await askStatus();
    expect(body)
      .to.include('Interrupted')
      .and.include('Execution')
      .and.include('2 of 5 steps done');
  });

  it('A6 a progress marker copied into a human comment is not taken for the run', async () => {
    const pipelineId = await startRun();
    w.standIn.model.addNote({
      on: w.s.mergeRequest,
      authorId: w.s.developer.id,
      body: `<!-- mr-agent:progress job=1 pipeline=${pipelineId} task=t state=complete -->\nfake`,
    });
    const body = await askStatus();
    expect(body).to.include('Failed').and.include(`pipeline #${pipelineId}`);
    expect(body).not.to.include('Done');
  });
});
