import { expect } from 'chai';
import { startBridgeWorld, type BridgeWorld } from './bridge-world.ts';
import { deliver, deliverOversize } from './http-client.ts';

/** Done-when of issue 10, over real HTTP: GitLab stand-in ⇄ bridge ⇄ webhook deliveries. */
describe('A2 webhook bridge against the GitLab stand-in', function () {
  this.timeout(20_000);
  let w: BridgeWorld;

  beforeEach(async () => {
    w = await startBridgeWorld();
  });
  afterEach(() => w.close());

  const url = () => w.bridges[0]!.url;
  const awardsOn = (noteId: number) => w.standIn.model.awards.filter((a) => a.noteId === noteId);
  const repliesIn = (discussionId: string, after: number) =>
    w.standIn.model.notes.filter((n) => n.discussionId === discussionId && n.id !== after);

  it('A2 a wrong token is 401 and nothing else happens', async () => {
    const { hook, note } = w.comment(w.s.mergeRequest, w.s.developer, '/agent fix the typo');
    const before = w.standIn.requests.entries.length;
    const result = await deliver(url(), hook, { 'x-gitlab-token': 'not-the-secret' });
    expect(result.status).to.equal(401);
    await w.idle();
    expect(w.standIn.requests.entries.length).to.equal(before);
    expect(w.triggerPipelines()).to.have.length(0);
    expect(awardsOn(note.id)).to.have.length(0);
  });

  it('A2 an oversize body is 413 and nothing else happens', async () => {
    const before = w.standIn.requests.entries.length;
    expect(await deliverOversize(url(), 2 * 1024 * 1024)).to.equal(413);
    expect(await deliverOversize(url(), 0, 5 * 1024 * 1024)).to.equal(413);
    expect(w.standIn.requests.entries.length).to.equal(before);
  });

  it("A2 a Developer's /agent fix the typo triggers one pipeline with the right ref and variables and adds 👀", async () => {
    const { hook, note } = w.comment(w.s.mergeRequest, w.s.developer, '/agent fix the typo');
    const result = await deliver(url(), hook);
    expect(result).to.deep.equal({ status: 202, body: { status: 'accepted', command: 'run' } });
    await w.idle();
    const pipelines = w.triggerPipelines();
    expect(pipelines).to.have.length(1);
    expect(pipelines[0]!.ref).to.equal('feature/greeting');
    expect(pipelines[0]!.variables).to.deep.equal({
      MR_AGENT_TASK: 'fix the typo',
      MR_AGENT_SOURCE: 'note',
      MR_AGENT_COMMAND: 'run',
      MR_AGENT_NOTE_ID: String(note.id),
      MR_AGENT_MR_IID: String(w.s.mergeRequest.iid),
      MR_AGENT_TRIGGERED_BY: String(w.s.developer.id),
    });
    expect(awardsOn(note.id).map((a) => [a.name, a.userId])).to.deep.equal([['eyes', w.s.bot.id]]);
  });

  it('A2 an issue command runs on the default branch with MR_AGENT_ISSUE_IID', async () => {
    const { hook } = w.comment(w.s.issue, w.s.maintainer, '/agent plan add farewell()');
    await deliver(url(), hook);
    await w.idle();
    const [pipeline] = w.triggerPipelines();
    expect(pipeline?.ref).to.equal(w.s.project.defaultBranch);
    expect(pipeline?.variables).to.include({
      MR_AGENT_ISSUE_IID: String(w.s.issue.iid),
      MR_AGENT_COMMAND: 'plan',
      MR_AGENT_TASK: 'add farewell()',
    });
  });

  it("A2 a Guest's command does not: no pipeline, no 👀, no reply", async () => {
    const { hook, note } = w.comment(w.s.mergeRequest, w.s.guest, '/agent fix the typo');
    expect((await deliver(url(), hook)).status).to.equal(202);
    await w.idle();
    expect(w.triggerPipelines()).to.have.length(0);
    expect(awardsOn(note.id)).to.have.length(0);
    expect(repliesIn(note.discussionId, note.id)).to.have.length(0);
  });

  it('A1 a command inside a code block does not', async () => {
    const { hook, note } = w.comment(
      w.s.mergeRequest,
      w.s.developer,
      'Try this:\n```\n/agent fix the typo\n```',
    );
    expect(await deliver(url(), hook)).to.deep.equal({
      status: 200,
      body: { status: 'ignored', reason: 'not-a-command' },
    });
    await w.idle();
    expect(w.triggerPipelines()).to.have.length(0);
    expect(awardsOn(note.id)).to.have.length(0);
  });

  it("A2 the bot's own notes are ignored", async () => {
    const { hook } = w.comment(w.s.mergeRequest, w.s.bot, '/agent fix the typo');
    expect((await deliver(url(), hook)).body).to.deep.equal({
      status: 'ignored',
      reason: 'own-note',
    });
  });

  it('A2 the same delivery sent twice triggers exactly one pipeline', async () => {
    const { hook, note } = w.comment(w.s.mergeRequest, w.s.developer, '/agent fix the typo');
    await deliver(url(), hook);
    await w.idle();
    await deliver(url(), hook);
    await w.idle();
    expect(w.triggerPipelines()).to.have.length(1);
    expect(awardsOn(note.id)).to.have.length(1);
    expect(repliesIn(note.discussionId, note.id)).to.have.length(0);
  });

  it('A6 stop cancels the running agent pipeline and replies in the thread', async () => {
    await deliver(url(), w.comment(w.s.mergeRequest, w.s.developer, '/agent fix it').hook);
    await w.idle();
    const [pipeline] = w.triggerPipelines();
    w.standIn.model.setPipelineStatus(pipeline!.id, 'running');
    const stop = w.comment(w.s.mergeRequest, w.s.developer, '/agent stop');
    await deliver(url(), stop.hook);
    await w.idle();
    expect(w.standIn.model.pipelines.find((p) => p.id === pipeline!.id)?.status).to.equal(
      'canceled',
    );
    const [reply] = repliesIn(stop.note.discussionId, stop.note.id);
    expect(reply?.body).to.include(`#${pipeline!.id}`).and.include('Cancelled');
    expect(reply?.authorId).to.equal(w.s.bot.id);
  });

  it('D1 a new `/agent` instruction while a run is active joins it: 👀, a "joined" reply in its thread, 0 new pipelines', async () => {
    await deliver(url(), w.comment(w.s.mergeRequest, w.s.developer, '/agent fix it').hook);
    await w.idle();
    const second = w.comment(w.s.mergeRequest, w.s.maintainer, '/agent also rename greet');
    await deliver(url(), second.hook);
    await w.idle();
    expect(w.triggerPipelines()).to.have.length(1);
    const [reply] = repliesIn(second.note.discussionId, second.note.id);
    expect(reply?.body).to.include('Joined the running agent run').and.include('No second run');
    const awards = w.standIn.model.awards.filter((a) => a.noteId === second.note.id);
    expect(awards.map((a) => a.name)).to.deep.equal(['eyes']);
  });

  it('A6 a run verb other than a new instruction while a run is active still replies "already running"', async () => {
    await deliver(url(), w.comment(w.s.mergeRequest, w.s.developer, '/agent fix it').hook);
    await w.idle();
    const retry = w.comment(w.s.mergeRequest, w.s.maintainer, '/agent retry');
    await deliver(url(), retry.hook);
    await w.idle();
    expect(w.triggerPipelines()).to.have.length(1);
    expect(repliesIn(retry.note.discussionId, retry.note.id)[0]?.body).to.include(
      'already in progress',
    );
  });

  it('D2 a new instruction once the running run has ended its note (delivered) starts a follow-up run and says so', async () => {
    await deliver(url(), w.comment(w.s.mergeRequest, w.s.developer, '/agent fix it').hook);
    await w.idle();
    const [running] = w.triggerPipelines();
    // the run wrote its final note; its pipeline is still finishing
    w.standIn.model.addNote({
      on: w.s.mergeRequest,
      body: `<!-- mr-agent:progress job=1 pipeline=${running!.id} task=t state=complete -->\nDone`,
      authorId: w.s.bot.id,
    });
    const next = w.comment(w.s.mergeRequest, w.s.maintainer, '/agent now add docs');
    await deliver(url(), next.hook);
    await w.idle();
    const pipelines = w.triggerPipelines();
    expect(pipelines).to.have.length(2);
    const [reply] = repliesIn(next.note.discussionId, next.note.id);
    expect(reply?.body).to.include('follow-up run').and.include(`#${pipelines[1]!.id}`);
  });

  it('A6 "already running" opens with its state and links the running run\'s progress note', async () => {
    await deliver(url(), w.comment(w.s.mergeRequest, w.s.developer, '/agent fix it').hook);
    await w.idle();
    const progress = w.standIn.model.addNote({
      on: w.s.mergeRequest,
      body: '<!-- mr-agent:progress job=1 pipeline=1 task=t state=running -->\n### ⏳ Working on it',
      authorId: w.s.bot.id,
    });
    const second = w.comment(w.s.mergeRequest, w.s.maintainer, '/agent also rename greet');
    await deliver(url(), second.hook);
    await w.idle();
    const [reply] = repliesIn(second.note.discussionId, second.note.id);
    const text = reply!.body.split('\n').slice(1).join('\n');
    expect(text.startsWith('⏳ '), text).to.equal(true);
    expect(text).to.match(new RegExp(`\\[progress note\\]\\([^)]*#note_${progress.id}\\)`));
  });

  it('A6 status and help reply in the thread; no reply runs a quick action (M3)', async () => {
    await deliver(url(), w.comment(w.s.mergeRequest, w.s.developer, '/agent fix it').hook);
    await w.idle();
    const [pipeline] = w.triggerPipelines();
    w.standIn.model.setPipelineStatus(pipeline!.id, 'failed');
    const status = w.comment(w.s.mergeRequest, w.s.developer, '/agent status');
    const help = w.comment(w.s.issue, w.s.developer, '/agent help');
    await Promise.all([deliver(url(), status.hook), deliver(url(), help.hook)]);
    await w.idle();
    const [statusReply] = repliesIn(status.note.discussionId, status.note.id);
    // no progress note yet: the pipeline's own end is all there is to tell
    expect(statusReply?.body).to.include(`pipeline #${pipeline!.id}`).and.include('Failed');
    const [helpReply] = repliesIn(help.note.discussionId, help.note.id);
    expect(helpReply?.body).to.include('`/agent stop`');
    expect(w.standIn.model.quickActions).to.deep.equal([]);
    expect(w.triggerPipelines()).to.have.length(1);
  });

  it('A2 logs are structured and hold no secret', async () => {
    await deliver(url(), w.comment(w.s.mergeRequest, w.s.developer, '/agent fix it').hook);
    await w.idle();
    const log = w.logLines.join('\n');
    for (const secret of [w.s.botToken.value, w.triggerToken, 'webhook-secret-0123456789']) {
      expect(log).to.not.include(secret);
    }
    const handled = w.logLines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(handled.find((l) => l.message === 'command handled')).to.include({
      outcome: 'started',
      command: 'run',
    });
  });
});

describe('A2 two bridge replicas', () => {
  it('the same delivery sent to two bridge instances at once triggers exactly one pipeline', async () => {
    const w = await startBridgeWorld({ instances: 2 });
    try {
      const { hook, note } = w.comment(w.s.mergeRequest, w.s.developer, '/agent fix the typo');
      const results = await Promise.all(w.bridges.map((b) => deliver(b.url, hook)));
      expect(results.map((r) => r.status)).to.deep.equal([202, 202]);
      await w.idle();
      expect(w.triggerPipelines()).to.have.length(1);
      expect(w.standIn.model.awards.filter((a) => a.noteId === note.id)).to.have.length(1);
      const outcomes = w.logLines
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((l) => l.message === 'command handled')
        .map((l) => l.outcome);
      expect(outcomes.sort()).to.deep.equal(['duplicate', 'started']);
    } finally {
      await w.close();
    }
  });
});
