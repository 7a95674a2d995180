import { expect } from 'chai';
import type { GitLabPort, Noteable } from '../../src/core/gitlab-port.ts';
import { renderMarker } from '../../src/report/marker.ts';
import type { IssueRec, MergeRequestRec, NoteRec } from '../../src/testkit/gitlab-server/index.ts';
import type { BridgeWorld } from './bridge-world.ts';
import { startWebhookBridgeWorld } from '../support/webhook-bridge-world.ts';
import { deliver } from './http-client.ts';

/**
 * F4 resume over real HTTP: the stand-in sends its own Comments webhooks
 * (GitLab's payload, with `discussion_id` and `type`) to the bridge; a reply
 * below a ❓ question a stopped run awaits starts the pipeline again.
 */
describe('F4 a reply below a paused ❓ question resumes the run (webhook bridge)', function () {
  this.timeout(20_000);
  let w: BridgeWorld;
  let developer: GitLabPort;
  let mr: Noteable;
  let settle: () => Promise<void>;

  beforeEach(async () => {
    ({ w, developer, mr, settle } = await startWebhookBridgeWorld());
  });
  afterEach(() => w.close());

  /** The ❓ note a run stopped on, as the agent posts it (a plain note with the marker). */
  function question(state: string, on: MergeRequestRec | IssueRec = w.s.mergeRequest): NoteRec {
    const marker = renderMarker({ kind: 'clarification', job: '4711', task: 'task-7', state });
    const body = `${marker}\n## ❓ Clarification Needed (AI Decision)\n\n1. Which branch should the fix target?`;
    return w.standIn.model.addNote({ on, body, authorId: w.s.bot.id });
  }

  function reply(to: NoteRec, author: { id: number }, body: string): NoteRec {
    const on =
      to.noteableType === 'MergeRequest'
        ? w.standIn.model.mergeRequests.find((m) => m.id === to.noteableId)!
        : w.standIn.model.issues.find((i) => i.id === to.noteableId)!;
    return w.standIn.model.addNote({
      on,
      body,
      authorId: author.id,
      discussionId: to.discussionId,
    });
  }

  const awardsOn = (noteId: number) => w.standIn.model.awards.filter((a) => a.noteId === noteId);
  const botNotesAfter = (noteId: number) =>
    w.standIn.model.notes.filter((n) => n.authorId === w.s.bot.id && n.id > noteId);
  const discussionReads = () =>
    w.standIn.requests.entries.filter((e) => e.method === 'GET' && e.path.endsWith('/discussions'));

  it("F4 a Developer's reply below a paused ❓ question triggers one pipeline with resume variables and 👀", async () => {
    const asked = question('awaiting_answer');
    await settle();
    const discussionId = asked.discussionId;
    const answer = await developer.replyToDiscussion(w.s.project.id, mr, discussionId, 'main');
    await settle();
    const pipelines = w.triggerPipelines();
    expect(pipelines).to.have.length(1);
    expect(pipelines[0]!.ref).to.equal(w.s.mergeRequest.sourceBranch);
    expect(pipelines[0]!.variables).to.deep.equal({
      MR_AGENT_SOURCE: 'note',
      MR_AGENT_COMMAND: 'resume',
      MR_AGENT_NOTE_ID: String(answer.id),
      MR_AGENT_MR_IID: String(w.s.mergeRequest.iid),
      MR_AGENT_TRIGGERED_BY: String(w.s.developer.id),
      MR_AGENT_RESUME_DISCUSSION_ID: discussionId,
      MR_AGENT_RESUME_QUESTION_NOTE_ID: String(asked.id),
      MR_AGENT_RESUME_TASK_ID: 'task-7',
      MR_AGENT_RESUME_JOB_ID: '4711',
    });
    expect(awardsOn(answer.id).map((a) => [a.name, a.userId])).to.deep.equal([
      ['eyes', w.s.bot.id],
    ]);
    expect(botNotesAfter(answer.id)).to.have.length(0);
  });

  it('F4 a reply on an issue resumes on the default branch with MR_AGENT_ISSUE_IID', async () => {
    const asked = question('awaiting_answer', w.s.issue);
    reply(asked, w.s.maintainer, 'Put it next to greet.');
    await settle();
    const [pipeline, ...others] = w.triggerPipelines();
    expect(others).to.have.length(0);
    expect(pipeline?.ref).to.equal(w.s.project.defaultBranch);
    expect(pipeline?.variables).to.include({
      MR_AGENT_COMMAND: 'resume',
      MR_AGENT_ISSUE_IID: String(w.s.issue.iid),
      MR_AGENT_RESUME_QUESTION_NOTE_ID: String(asked.id),
    });
  });

  it('F4 the same reply delivered twice triggers once', async () => {
    const asked = question('awaiting_answer');
    const answer = reply(asked, w.s.developer, 'Target main, please.');
    await settle();
    const payload = w.standIn.hooks.notePayload(answer, w.s.project);
    expect(await deliver(w.bridges[0]!.url, payload)).to.deep.equal({
      status: 202,
      body: { status: 'accepted', command: 'reply' },
    });
    await settle();
    expect(w.triggerPipelines()).to.have.length(1);
    expect(awardsOn(answer.id)).to.have.length(1);
    expect(botNotesAfter(answer.id)).to.have.length(0);
  });

  it("F4 a Guest's reply does not resume: no pipeline, no 👀, no reply", async () => {
    const asked = question('awaiting_answer');
    const answer = reply(asked, w.s.guest, 'main');
    await settle();
    expect(w.triggerPipelines()).to.have.length(0);
    expect(awardsOn(answer.id)).to.have.length(0);
    expect(botNotesAfter(answer.id)).to.have.length(0);
  });

  it('F4 a reply in an ordinary discussion triggers nothing', async () => {
    const started = await developer.createNote(w.s.project.id, mr, 'Should greet() trim names?');
    const thread = w.standIn.model.notes.find((n) => n.id === started.id)!;
    const answer = reply(thread, w.s.maintainer, 'Yes, please.');
    await settle();
    expect(w.triggerPipelines()).to.have.length(0);
    expect(awardsOn(answer.id)).to.have.length(0);
    expect(botNotesAfter(started.id)).to.have.length(0);
    const handled = w.logLines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.message === 'command handled');
    expect(handled.map((l) => l.outcome)).to.deep.equal(['not-a-resume']);
  });

  for (const state of ['waiting', 'answered', 'assumed']) {
    it(`F4 a reply below a question in state ${state} triggers nothing`, async () => {
      const asked = question(state);
      const answer = reply(asked, w.s.developer, 'main');
      await settle();
      expect(w.triggerPipelines()).to.have.length(0);
      expect(awardsOn(answer.id)).to.have.length(0);
    });
  }

  it('F4 a reply after the resumed run acknowledged the answer (✅ Answered) triggers nothing', async () => {
    const asked = question('awaiting_answer');
    reply(asked, w.s.developer, 'main');
    await settle();
    const [pipeline] = w.triggerPipelines();
    w.standIn.model.setPipelineStatus(pipeline!.id, 'success');
    const ack = renderMarker({ kind: 'clarification', job: '4712', state: 'answered' });
    reply(asked, w.s.bot, `${ack}\n✅ **Answered** by @dev: continuing with the answers.`);
    const late = reply(asked, w.s.developer, 'Thanks!');
    await settle();
    expect(w.triggerPipelines()).to.have.length(1);
    expect(awardsOn(late.id)).to.have.length(0);
    expect(botNotesAfter(late.id)).to.have.length(0);
  });

  it("F4 the bot's own note in the thread triggers nothing and reads no thread", async () => {
    const asked = question('awaiting_answer');
    await settle();
    const reads = discussionReads().length;
    reply(asked, w.s.bot, 'Still waiting for an answer.');
    await settle();
    expect(w.triggerPipelines()).to.have.length(0);
    expect(discussionReads().length).to.equal(reads);
    expect(w.logLines.some((l) => l.includes('"reason":"own-note"'))).to.equal(true);
  });

  it('F4 top-level comments never read a thread (fast path)', async () => {
    question('awaiting_answer');
    for (let i = 0; i < 5; i++) await developer.createNote(w.s.project.id, mr, `nit ${i}`);
    await settle();
    expect(discussionReads()).to.have.length(0);
    expect(w.triggerPipelines()).to.have.length(0);
  });

  it('F4 a reply while an agent run is active gets "already running" and starts nothing', async () => {
    const asked = question('awaiting_answer');
    reply(asked, w.s.developer, 'main');
    await settle();
    const [pipeline] = w.triggerPipelines();
    w.standIn.model.setPipelineStatus(pipeline!.id, 'running');
    const second = reply(asked, w.s.maintainer, 'Actually, use develop.');
    await settle();
    expect(w.triggerPipelines()).to.have.length(1);
    const [answer] = botNotesAfter(second.id);
    expect(answer?.discussionId).to.equal(asked.discussionId);
    expect(answer?.body).to.include('already in progress');
  });

  it('F4 a command typed as the reply stays a command', async () => {
    const asked = question('awaiting_answer');
    const answer = reply(asked, w.s.developer, '/agent status');
    await settle();
    expect(w.triggerPipelines()).to.have.length(0);
    const [status] = botNotesAfter(answer.id);
    expect(status?.discussionId).to.equal(asked.discussionId);
  });
});
