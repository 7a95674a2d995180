import { expect } from 'chai';
import { startBridgeWorld, type BridgeWorld } from './bridge-world.ts';
import { deliver } from './http-client.ts';

/**
 * Seed 002's pause and resume verbs through the webhook bridge (issue 23),
 * over real HTTP against the GitLab stand-in.
 */
describe('seed 002 /agent pause and /agent resume (bridge, issue 23)', function () {
  this.timeout(20_000);
  let w: BridgeWorld;

  beforeEach(async () => {
    w = await startBridgeWorld();
  });
  afterEach(() => w.close());

  const url = () => w.bridges[0]!.url;

  async function command(body: string) {
    const c = w.comment(w.s.mergeRequest, w.s.developer, body);
    await deliver(url(), c.hook);
    await w.idle();
    const replies = w.standIn.model.notes.filter(
      (n) => n.discussionId === c.note.discussionId && n.id !== c.note.id,
    );
    return { note: c.note, replies };
  }

  it("seed 002 `/agent pause` puts the agent's ⏸ on the running run's progress note and says how to resume; the pipeline is not cancelled", async () => {
    await command('/agent fix it');
    const [pipeline] = w.triggerPipelines();
    const progress = w.standIn.model.addNote({
      on: w.s.mergeRequest,
      authorId: w.s.bot.id,
      body: `<!-- mr-agent:progress job=77 pipeline=${pipeline!.id} task=t state=running -->\n### ⏳ Working on it`,
    });

    const { replies } = await command('/agent pause');

    const awards = w.standIn.model.awards.filter((a) => a.noteId === progress.id);
    expect(awards.map((a) => [a.name, a.userId])).to.deep.equal([['pause_button', w.s.bot.id]]);
    expect(replies).to.have.length(1);
    expect(replies[0]!.body)
      .to.include('will pause after its current step')
      .and.include(`#note_${progress.id}`)
      .and.include('`/agent resume`');
    expect(w.standIn.model.pipelines.find((p) => p.id === pipeline!.id)?.status).not.to.equal(
      'canceled',
    );
    expect(w.standIn.model.quickActions).to.deep.equal([]);
  });

  it('seed 002 `/agent pause` with no active run replies that there is nothing to pause', async () => {
    const { replies } = await command('/agent pause');
    expect(replies.map((r) => r.body).join('\n')).to.include('nothing to pause');
    expect(w.standIn.model.awards.filter((a) => a.name === 'pause_button')).to.deep.equal([]);
  });

  it('seed 002 `/agent resume` starts a pipeline with MR_AGENT_COMMAND=resume (a run command: "already running" applies)', async () => {
    await command('/agent resume');
    const [pipeline, ...others] = w.triggerPipelines();
    expect(others).to.have.length(0);
    expect(pipeline?.variables).to.include({
      MR_AGENT_COMMAND: 'resume',
      MR_AGENT_MR_IID: String(w.s.mergeRequest.iid),
    });
    expect(pipeline?.variables).not.to.have.property('MR_AGENT_RESUME_QUESTION_NOTE_ID');
    const { replies } = await command('/agent resume');
    expect(replies[0]?.body).to.include('already in progress');
  });

  it('A6 `/agent help` lists pause and resume', async () => {
    const { replies } = await command('/agent help');
    expect(replies[0]?.body).to.include('`/agent pause`').and.include('`/agent resume`');
  });
});
