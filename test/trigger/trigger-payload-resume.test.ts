import { expect } from 'chai';
import { createGitLabClient } from '../../src/gitlab/gitbeaker-adapter.ts';
import { createSilentLogger } from '../../src/log/logger.ts';
import { renderMarker } from '../../src/report/marker.ts';
import { FakeClock } from '../../src/core/clock.ts';
import {
  seedScenario,
  startGitLabStandIn,
  type GitLabStandIn,
  type NoteRec,
  type Scenario,
  type UserRec,
} from '../../src/testkit/gitlab-server/index.ts';
import { dispatchCommand } from '../../src/commands/dispatch.ts';
import { bridgeGitLabFromPort, threadLookup } from '../../src/commands/gitlab-bridge.ts';
import type { ThreadLookup } from '../../src/commands/resume.ts';
import {
  interpretTriggerPayload,
  resolveTriggerPayload,
} from '../../src/commands/trigger-payload.ts';

/**
 * F4 with the zero-infrastructure trigger (A3): every comment starts a
 * pipeline carrying GitLab's Comments event as TRIGGER_PAYLOAD; the job
 * resolves it with a thread lookup, and a reply below a paused ❓ question
 * goes on as a `resume` request through the bridge's rules.
 */
describe('F4 TRIGGER_PAYLOAD: a reply below a paused ❓ question resumes the run', function () {
  this.timeout(20_000);
  let standIn: GitLabStandIn;
  let s: Scenario;
  let token: string;
  let lookups: string[];
  let lookup: ThreadLookup;

  beforeEach(async () => {
    standIn = await startGitLabStandIn();
    s = await seedScenario(standIn.model);
    token = standIn.model.addTriggerToken(s.project, s.maintainer.id).value;
    const port = createGitLabClient({
      url: standIn.url,
      token: s.botToken.value,
      clock: new FakeClock(),
    });
    const read = threadLookup(port);
    lookups = [];
    lookup = (projectId, target, discussionId) => {
      lookups.push(discussionId);
      return read(projectId, target, discussionId);
    };
  });
  afterEach(() => standIn.close());

  const rules = () => ({ prefix: '/agent', self: { id: s.bot.id } });

  function question(state: string): NoteRec {
    const marker = renderMarker({ kind: 'clarification', job: '4711', task: 'task-7', state });
    const body = `${marker}\n## ❓ Clarification Needed (AI Decision)\n\n1. Which branch?`;
    return standIn.model.addNote({ on: s.mergeRequest, body, authorId: s.bot.id });
  }

  /** A comment, and the pipeline GitLab starts for it at the trigger URL (GitLab's own payload). */
  async function comment(author: UserRec, body: string, thread?: NoteRec) {
    const note = standIn.model.addNote({
      on: s.mergeRequest,
      body,
      authorId: author.id,
      ...(thread ? { discussionId: thread.discussionId } : {}),
    });
    return { note, pipeline: await pipelineFor(note) };
  }

  async function pipelineFor(note: NoteRec) {
    const url = `${standIn.url}/api/v4/projects/${s.project.id}/ref/${s.project.defaultBranch}/trigger/pipeline?token=${token}`;
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gitlab-event': 'Note Hook' },
      body: JSON.stringify(standIn.hooks.notePayload(note, s.project)),
    });
    expect(response.status).to.equal(201);
    return standIn.model.pipelines.at(-1)!;
  }

  /** The job's side: resolve the payload, then the bridge's rules with its own pipeline. */
  async function job(pipeline: { id: number; ref: string; variables: Record<string, string> }) {
    const decision = await resolveTriggerPayload(
      pipeline.variables.TRIGGER_PAYLOAD,
      rules(),
      { pipelineRef: pipeline.ref },
      lookup,
    );
    if (decision.kind === 'skip') return { decision, outcome: undefined };
    const port = createGitLabClient({
      url: standIn.url,
      token: s.botToken.value,
      clock: new FakeClock(),
    });
    const own = { id: pipeline.id, status: 'running', ref: pipeline.ref };
    const outcome = await dispatchCommand(
      {
        gitlab: bridgeGitLabFromPort(port),
        logger: createSilentLogger(),
        minAccessLevel: 30,
        prefix: '/agent',
        selfId: s.bot.id,
        start: async () => own,
        excludePipelineId: pipeline.id,
      },
      decision.request,
    );
    return { decision, outcome };
  }

  const awardsOn = (noteId: number) => standIn.model.awards.filter((a) => a.noteId === noteId);

  it("F4 a Developer's reply below a paused ❓ question goes on as resume, claimed with 👀", async () => {
    const asked = question('awaiting_answer');
    const { note, pipeline } = await comment(s.developer, 'main', asked);
    const { decision, outcome } = await job(pipeline);
    expect(outcome).to.deep.include({ kind: 'started' });
    expect(decision.kind === 'command' && decision.request).to.deep.include({
      command: 'resume',
      instruction: '',
      noteId: note.id,
      ref: s.project.defaultBranch,
      resume: {
        discussionId: asked.discussionId,
        questionNoteId: asked.id,
        taskId: 'task-7',
        jobId: '4711',
      },
    });
    expect(decision.kind === 'command' && decision.variables).to.include({
      MR_AGENT_COMMAND: 'resume',
      MR_AGENT_NOTE_ID: String(note.id),
      MR_AGENT_RESUME_DISCUSSION_ID: asked.discussionId,
      MR_AGENT_RESUME_QUESTION_NOTE_ID: String(asked.id),
      MR_AGENT_RESUME_TASK_ID: 'task-7',
      MR_AGENT_RESUME_JOB_ID: '4711',
    });
    expect(awardsOn(note.id)).to.have.length(1);
  });

  it('F4 the same reply delivered twice goes on once', async () => {
    const asked = question('awaiting_answer');
    const { note, pipeline } = await comment(s.developer, 'main', asked);
    const again = await pipelineFor(note);
    const first = await job(pipeline);
    const second = await job(again);
    expect([first.outcome?.kind, second.outcome?.kind]).to.deep.equal(['started', 'duplicate']);
    expect(awardsOn(note.id)).to.have.length(1);
  });

  it('F4 D1 while the resumed run is active, a second reply gets "already running" and a new instruction joins the run', async () => {
    const asked = question('awaiting_answer');
    const first = await comment(s.developer, 'main', asked);
    expect((await job(first.pipeline)).outcome?.kind).to.equal('started');
    standIn.model.setPipelineStatus(first.pipeline.id, 'running');
    const second = await comment(s.maintainer, 'Or develop?', asked);
    expect((await job(second.pipeline)).outcome?.kind).to.equal('already-running');
    const command = await comment(s.developer, '/agent rename greet');
    expect((await job(command.pipeline)).outcome?.kind).to.equal('joined');
    standIn.model.setPipelineStatus(first.pipeline.id, 'success');
    standIn.model.setPipelineStatus(second.pipeline.id, 'success');
    standIn.model.setPipelineStatus(command.pipeline.id, 'success');
    const later = await comment(s.developer, '/agent rename greet');
    expect((await job(later.pipeline)).outcome?.kind).to.equal('started');
  });

  it('F4 an active reply pipeline in an ordinary thread is no agent run', async () => {
    const started = standIn.model.addNote({
      on: s.mergeRequest,
      body: 'Should greet() trim?',
      authorId: s.developer.id,
    });
    const chat = await comment(s.maintainer, 'Yes.', started);
    standIn.model.setPipelineStatus(chat.pipeline.id, 'running');
    const command = await comment(s.developer, '/agent trim names in greet');
    expect((await job(command.pipeline)).outcome?.kind).to.equal('started');
  });

  it("F4 a Guest's reply is refused without a reaction", async () => {
    const asked = question('awaiting_answer');
    const { note, pipeline } = await comment(s.guest, 'main', asked);
    expect((await job(pipeline)).outcome).to.deep.equal({ kind: 'forbidden', accessLevel: 10 });
    expect(awardsOn(note.id)).to.have.length(0);
  });

  it('F4 a reply in an ordinary discussion is not a command', async () => {
    const started = standIn.model.addNote({
      on: s.mergeRequest,
      body: 'Should greet() trim?',
      authorId: s.developer.id,
    });
    const { pipeline } = await comment(s.maintainer, 'Yes.', started);
    const { decision } = await job(pipeline);
    expect(decision).to.deep.include({ kind: 'skip', reason: 'not-a-command' });
    expect(lookups).to.deep.equal([started.discussionId]);
  });

  for (const state of ['waiting', 'answered']) {
    it(`F4 a reply below a question in state ${state} is not a command`, async () => {
      const { pipeline } = await comment(s.developer, 'main', question(state));
      expect((await job(pipeline)).decision).to.deep.include({ kind: 'skip' });
    });
  }

  it("F4 the bot's own note in the thread is skipped without a look-up", async () => {
    const asked = question('awaiting_answer');
    const { pipeline } = await comment(s.bot, 'Still waiting.', asked);
    expect((await job(pipeline)).decision).to.deep.include({ kind: 'skip', reason: 'own-note' });
    expect(lookups).to.deep.equal([]);
  });

  it('F4 a top-level comment that is no command is skipped without any API call', async () => {
    question('awaiting_answer');
    const { pipeline } = await comment(s.developer, 'LGTM');
    const before = standIn.requests.entries.length;
    const { decision } = await job(pipeline);
    expect(decision).to.deep.include({ kind: 'skip', reason: 'not-a-command' });
    expect(lookups).to.deep.equal([]);
    expect(standIn.requests.entries.length).to.equal(before);
  });

  it('F4 the pure interpreter leaves a reply as "not a command" (it looks nothing up)', async () => {
    const { pipeline } = await comment(s.developer, 'main', question('awaiting_answer'));
    const decision = interpretTriggerPayload(pipeline.variables.TRIGGER_PAYLOAD, rules());
    expect(decision).to.deep.include({ kind: 'skip', reason: 'not-a-command' });
  });
});
