import { expect } from 'chai';
import { loadConfig } from '../../src/config/load.ts';
import { GitLabNoteTarget } from '../../src/gitlab/note-target.ts';
import type { Noteable } from '../../src/core/gitlab-port.ts';
import { createMemoryLogger } from '../../src/log/logger.ts';
import { Redactor } from '../../src/log/redact.ts';
import { authorisedReplies, gitlabAnswers } from '../../src/phases/replan/answers.ts';
import { Clarifier } from '../../src/phases/replan/clarification.ts';
import { jobReads } from '../../src/gitlab/job-reads.ts';
import { startWorld, type World } from '../gitlab/world.ts';

describe('replan: answers from the ❓ thread on GitLab (F4; real HTTP to the stand-in)', () => {
  let w: World;
  let mr: Noteable;
  beforeEach(async () => {
    w = await startWorld();
    mr = { type: 'merge_request', iid: w.s.mergeRequest.iid };
  });
  afterEach(async () => {
    await w.close();
  });

  function answers() {
    return gitlabAnswers(w.gitlab, {
      project: w.s.project.id,
      on: mr,
      minAccessLevel: 30,
      selfId: w.s.bot.id,
    });
  }

  function mrRec() {
    return w.standIn.model.mergeRequests.find((m) => m.iid === w.s.mergeRequest.iid)!;
  }

  it("issue 17 #6 the first look at a thread uses the job's one listing and role lookups; a later look lists again", async () => {
    const question = await w.gitlab.createNote(w.s.project.id, mr, '❓ Which branch?');
    const discussionId = w.standIn.model.notes.find((n) => n.id === question.id)!.discussionId;
    w.standIn.model.addNote({
      on: mrRec(),
      body: 'Use the release branch.',
      authorId: w.s.developer.id,
      discussionId,
    });
    const reads = jobReads(w.gitlab, w.s.project.id);
    await reads.discussions(mr); // the job listed the threads at its start
    await reads.accessLevel(w.s.developer.id); // and looked the commenter up
    w.standIn.requests.clear();
    const source = gitlabAnswers(w.gitlab, {
      project: w.s.project.id,
      on: mr,
      minAccessLevel: 30,
      selfId: w.s.bot.id,
      reads,
    });

    const first = await authorisedReplies(source, String(question.id));
    expect(first.map((r) => r.body)).to.deep.equal(['Use the release branch.']);
    expect(w.standIn.requests.entries).to.have.length(0);

    w.standIn.model.addNote({
      on: mrRec(),
      body: 'Or main.',
      authorId: w.s.developer.id,
      discussionId,
    });
    const later = await authorisedReplies(source, String(question.id));
    expect(later.map((r) => r.body)).to.deep.equal(['Use the release branch.', 'Or main.']);
    expect(w.standIn.requests.byRoute()).to.deep.equal({
      'GET /projects/:id/merge_requests/:iid/discussions': 1,
    });
  });

  it('reads the replies below the note; only people with enough access may answer', async () => {
    const question = await w.gitlab.createNote(w.s.project.id, mr, '❓ Which branch?');
    const discussionId = w.standIn.model.notes.find((n) => n.id === question.id)!.discussionId;
    const reply = (authorId: number, body: string, system = false) =>
      w.standIn.model.addNote({ on: mrRec(), body, authorId, discussionId, system });
    reply(w.s.guest.id, 'main, I guess');
    reply(w.s.developer.id, 'Use the release branch.');
    reply(w.s.bot.id, 'noted');
    reply(w.s.maintainer.id, 'changed the description', true);
    w.standIn.model.addNote({
      on: mrRec(),
      body: 'unrelated comment',
      authorId: w.s.maintainer.id,
    });

    const source = answers();
    const all = await source.replies(String(question.id));
    expect(all.map((r) => r.body)).to.deep.equal([
      'main, I guess',
      'Use the release branch.',
      'noted',
    ]);
    const allowed = await authorisedReplies(source, String(question.id));
    expect(allowed.map((r) => `${r.author.username}: ${r.body}`)).to.deep.equal([
      'dev: Use the release branch.',
    ]);
  });

  it('a note that is not found has no replies', async () => {
    expect(await answers().replies('999999')).to.deep.equal([]);
  });

  it('F4 the clarification flow posts the ❓ note, polls on the clock, and settles the note when a developer replies', async () => {
    const { config } = await loadConfig({ env: {}, file: null, sets: [] });
    const redactor = new Redactor();
    const { logger } = createMemoryLogger({ redactor });
    const target = new GitLabNoteTarget(w.gitlab, w.s.project.id, mr);
    const clarifier = new Clarifier({
      config,
      clock: w.clock,
      logger,
      answers: answers(),
      notes: {
        target,
        context: { taskId: 'task-9', jobId: '77' },
        redactor,
        minAccessLabel: 'developer',
      },
    });
    // the developer answers while the agent waits: after its second look at the thread
    let sleeps = 0;
    const sleep = w.clock.sleep.bind(w.clock);
    w.clock.sleep = async (ms: number) => {
      await sleep(ms);
      sleeps += 1;
      if (sleeps !== 2) return;
      const question = w.standIn.model.notes.find((n) =>
        n.body.includes('mr-agent:clarification'),
      )!;
      w.standIn.model.addNote({
        on: mrRec(),
        body: 'The release branch.',
        authorId: w.s.developer.id,
        discussionId: question.discussionId,
      });
    };
    const result = await clarifier.ask(
      { questions: ['Which branch?'], context: 'Two branches match.', assumptions: ['main'] },
      { pausable: true },
    );
    expect(result.kind).to.equal('answered');
    expect(result.kind === 'answered' && result.answers[0]!.body).to.equal('The release branch.');
    expect(w.clock.sleeps).to.deep.equal([30_000, 30_000]);
    const note = await w.gitlab.getNote(w.s.project.id, mr, Number(result.noteId));
    expect(note.body).to.contain(
      '<!-- mr-agent:clarification job=77 task=task-9 state=answered -->',
    );
    expect(note.body).to.contain('### ✅ Answered by @dev');
    expect(note.body).to.contain('Answers from members with Developer access or higher are used');
    // settled: no deadline left, and the thread resolved through the discussions API
    expect(note.body).to.not.contain('I will go on').and.not.contain('before I continue');
    const asked = w.standIn.model.notes.find((n) => n.id === Number(result.noteId))!;
    const resolution = w.standIn.model.review.resolved.get(asked.discussionId);
    expect(resolution?.byUserId, 'the thread is resolved by the bot').to.equal(asked.authorId);
  });
});
