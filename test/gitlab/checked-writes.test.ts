/**
 * Issue 18 §1 (SPEC H0, H1): a POST whose answer is lost — a timeout, a reset
 * connection, a 5xx — may have been carried out all the same. It is retried
 * only after checking whether it landed, never blind; 429 is still retried
 * as before. Over real HTTP against the stand-in, whose `afterHandling` fault
 * carries a request out and then loses its answer.
 */
import { expect } from 'chai';
import { ExternalServiceError } from '../../src/errors/errors.ts';
import { GitLabNoteTarget } from '../../src/gitlab/note-target.ts';
import type { Noteable } from '../../src/core/gitlab-port.ts';
import { parseMarker, renderMarker } from '../../src/report/marker.ts';
import { createMemoryLogger } from '../../src/log/logger.ts';
import { Redactor } from '../../src/log/redact.ts';
import { ProgressPublisher } from '../../src/report/progress/publisher.ts';
import { initialProgress, setPhaseDetail, startPhase } from '../../src/core/progress/updates.ts';
import { FakeClock } from '../../src/core/clock.ts';
import { ManualScheduler } from '../support/manual-scheduler.ts';
import { startWorld, type World } from './world.ts';

const NOTES = /^\/projects\/\d+\/merge_requests\/\d+\/notes$/;
const BAD_GATEWAY_HTML = '<html><body><h1>502 Bad Gateway</h1></body></html>';
const on: Noteable = { type: 'merge_request', iid: 1 };

describe('gitlab: writes whose answer is lost are checked, never repeated blind (issue 18 §1, H0 H1)', () => {
  let w: World;
  beforeEach(async () => {
    w = await startWorld({ timeoutMs: 500 });
  });
  afterEach(() => w.close());

  const botNotes = () => w.standIn.model.notes.filter((n) => n.authorId === w.s.bot.id);
  const apiCalls = () => w.standIn.requests.entries.map((e) => `${e.method} ${e.route || e.path}`);

  function publisherFor(job: string, pipeline: string) {
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const scheduler = new ManualScheduler(clock);
    const redactor = new Redactor();
    const { logger } = createMemoryLogger({ redactor, level: 'debug' });
    const target = new GitLabNoteTarget(w.gitlab, w.s.project.id, on);
    const initial = startPhase(
      initialProgress({
        taskId: 't18',
        title: 'Fix the sum',
        startedAt: clock.now(),
        jobId: job,
        pipelineId: pipeline,
      }),
      'execution',
      clock.now(),
    );
    const options = { target, redactor, logger, clock, scheduler, editIntervalMs: 1000 };
    return { scheduler, start: () => ProgressPublisher.start(options, initial) };
  }

  it('issue 18 done-when: a 502 after GitLab created the progress note leaves exactly one progress note, in its final state', async () => {
    w.standIn.faults.add({
      method: 'POST',
      path: NOTES,
      status: 502,
      body: BAD_GATEWAY_HTML,
      afterHandling: true,
    });
    const { scheduler, start } = publisherFor('301', '41');

    const publisher = await start();
    publisher.update((s) => setPhaseDetail(s, 'execution', 'editing src/sum.js'));
    await scheduler.advance(1500);
    expect(await publisher.finish({ state: 'complete', summary: 'Fixed.' })).to.equal(true);

    const notes = botNotes();
    expect(notes, 'one progress note').to.have.length(1);
    expect(parseMarker(notes[0]!.body)).to.include({
      kind: 'progress',
      job: '301',
      pipeline: '41',
      state: 'complete',
    });
    expect(publisher.noteId).to.equal(String(notes[0]!.id));
    expect(w.standIn.requests.count({ method: 'POST', route: NOTES_ROUTE })).to.equal(1);
  });

  it('H1 a job run again (same job, same pipeline) finds its progress note by the marker and edits it instead of posting a second', async () => {
    const first = await publisherFor('302', '42').start();
    await first.finish({ state: 'failed', summary: 'The runner was lost.' });
    const second = await publisherFor('302', '42').start();
    await second.finish({ state: 'complete', summary: 'Fixed on the second try.' });

    const notes = botNotes();
    expect(notes).to.have.length(1);
    expect(second.noteId).to.equal(String(notes[0]!.id));
    expect(parseMarker(notes[0]!.body)).to.include({ state: 'complete', job: '302' });
  });

  it('H1 another job of the same pipeline, or a note by somebody else carrying the marker, is not taken over', async () => {
    w.standIn.model.addNote({
      on: w.standIn.model.mergeRequests[0]!,
      body: `${renderMarker({ kind: 'progress', job: '303', pipeline: '43', state: 'running' })}\nforged`,
      authorId: w.s.developer.id,
    });
    const other = await publisherFor('304', '43').start();
    await other.finish({ state: 'complete', summary: 'done' });
    const mine = await publisherFor('303', '43').start();
    await mine.finish({ state: 'complete', summary: 'done' });

    expect(botNotes()).to.have.length(2);
    expect(new Set([other.noteId, mine.noteId]).size).to.equal(2);
  });

  it('H0 a 502 on a note POST that did not land: the notes are looked at first, then the POST is sent again, once', async () => {
    w.standIn.faults.add({ method: 'POST', path: NOTES, status: 502, body: BAD_GATEWAY_HTML });
    const target = new GitLabNoteTarget(w.gitlab, w.s.project.id, on);

    const created = await target.createNote('a reply that must be written once');

    expect(botNotes().map((n) => n.body)).to.deep.equal(['a reply that must be written once']);
    expect(created.id).to.equal(String(botNotes()[0]!.id));
    const calls = apiCalls().filter((c) => c.includes('/notes'));
    expect(calls).to.deep.equal([
      `POST ${NOTES_ROUTE}`,
      `GET ${NOTES_ROUTE}`,
      `POST ${NOTES_ROUTE}`,
    ]);
  });

  it('H0 a timed-out note POST that landed is found, not repeated', async () => {
    w.standIn.faults.add({ method: 'POST', path: NOTES, hang: true, afterHandling: true });
    const created = await new GitLabNoteTarget(w.gitlab, w.s.project.id, on).createNote('once');
    expect(botNotes()).to.have.length(1);
    expect(created.id).to.equal(String(botNotes()[0]!.id));
    expect(w.standIn.requests.count({ method: 'POST', route: NOTES_ROUTE })).to.equal(1);
  });

  it('H0 when the check itself fails, the write is not repeated blind: the first error is passed on', async () => {
    w.standIn.faults.add({ method: 'POST', path: NOTES, status: 502 });
    w.standIn.faults.add({ method: 'GET', path: NOTES, status: 500, times: Infinity });
    const error = await new GitLabNoteTarget(w.gitlab, w.s.project.id, on)
      .createNote('unknown fate')
      .catch((e: unknown) => e);
    expect(error).to.be.instanceOf(ExternalServiceError);
    expect((error as ExternalServiceError).status).to.equal(502);
    expect(w.standIn.requests.count({ method: 'POST', route: NOTES_ROUTE })).to.equal(1);
  });

  it('H0 a 429 on a POST is still retried after Retry-After (it never reached GitLab)', async () => {
    w.standIn.faults.add({ method: 'POST', path: NOTES, status: 429, retryAfter: 2 });
    await w.gitlab.createNote(w.s.project.id, on, 'rate limited once');
    expect(botNotes()).to.have.length(1);
    expect(w.clock.sleeps).to.deep.equal([2000]);
  });

  it('H0 a reply whose answer was lost is found in its thread, not posted twice', async () => {
    const start = w.standIn.model.addNote({
      on: w.standIn.model.mergeRequests[0]!,
      body: '/agent fix it',
      authorId: w.s.developer.id,
    });
    w.standIn.faults.add({
      method: 'POST',
      path: /\/discussions\/[^/]+\/notes$/,
      status: 502,
      afterHandling: true,
    });
    const reply = await w.gitlab.replyToDiscussion(w.s.project.id, on, start.discussionId, 'On it');
    const replies = botNotes().filter((n) => n.discussionId === start.discussionId);
    expect(replies).to.have.length(1);
    expect(reply.id).to.equal(replies[0]!.id);
  });

  it('#24 H0 a thread whose answer was lost is found by its first note, not started twice', async () => {
    w.standIn.faults.add({
      method: 'POST',
      path: /\/merge_requests\/\d+\/discussions$/,
      status: 502,
      afterHandling: true,
    });
    const thread = await w.gitlab.createDiscussion(w.s.project.id, on, '❓ Which file?');
    const started = botNotes().filter((n) => n.body === '❓ Which file?');
    expect(started).to.have.length(1);
    expect(thread.id).to.equal(started[0]!.discussionId);
    expect(thread.notes[0]!.id).to.equal(started[0]!.id);
  });

  it('H0 an award whose answer was lost counts as given (GitLab\'s 404 "has already been taken" on the retry is ours)', async () => {
    const note = w.standIn.model.addNote({
      on: w.standIn.model.mergeRequests[0]!,
      body: '/agent fix it',
      authorId: w.s.developer.id,
    });
    w.standIn.faults.add({
      method: 'POST',
      path: /\/award_emoji$/,
      status: 502,
      afterHandling: true,
    });
    const result = await w.gitlab.awardEmojiOnNote(w.s.project.id, on, note.id, 'eyes');
    expect(result.awarded).to.equal(true);
    expect(result.awarded && result.award.user.id).to.equal(w.s.bot.id);
    expect(w.standIn.model.awards.filter((a) => a.noteId === note.id)).to.have.length(1);
  });

  it('H0 an award that was already there before (another delivery of the same webhook) is still "already awarded"', async () => {
    const note = w.standIn.model.addNote({
      on: w.standIn.model.mergeRequests[0]!,
      body: '/agent fix it',
      authorId: w.s.developer.id,
    });
    expect((await w.gitlab.awardEmojiOnNote(w.s.project.id, on, note.id, 'eyes')).awarded).to.equal(
      true,
    );
    expect((await w.gitlab.awardEmojiOnNote(w.s.project.id, on, note.id, 'eyes')).awarded).to.equal(
      false,
    );
  });

  it('H0 H3 a merge request whose creation answer was lost is found by its branches, not opened twice', async () => {
    await w.standIn.model.commit(w.s.project, 'mr-agent/1-9', { 'a.txt': 'a\n' }, { from: 'main' });
    w.standIn.faults.add({
      method: 'POST',
      path: /\/merge_requests$/,
      status: 502,
      afterHandling: true,
    });
    const mr = await w.gitlab.createMergeRequest(w.s.project.id, {
      sourceBranch: 'mr-agent/1-9',
      targetBranch: 'feature/greeting',
      title: 'The change',
      description: 'x',
    });
    const opened = w.standIn.model.mergeRequests.filter((m) => m.sourceBranch === 'mr-agent/1-9');
    expect(opened).to.have.length(1);
    expect(mr.iid).to.equal(opened[0]!.iid);
    expect(mr.targetBranch).to.equal('feature/greeting');
  });

  it('H0 a pipeline trigger whose answer was lost is found by its variables, not started twice', async () => {
    const trigger = w.standIn.model.addTriggerToken(w.s.project, w.s.bot.id);
    w.standIn.faults.add({
      method: 'POST',
      path: /\/trigger\/pipeline$/,
      status: 502,
      afterHandling: true,
    });
    const variables = { MR_AGENT_TASK: 'fix it', MR_AGENT_NOTE_ID: '1234' };
    const pipeline = await w.gitlab.triggerPipeline(w.s.project.id, {
      token: trigger.value,
      ref: 'feature/greeting',
      variables,
    });
    expect(w.standIn.model.pipelines).to.have.length(1);
    expect(pipeline.id).to.equal(w.standIn.model.pipelines[0]!.id);
  });
});

const NOTES_ROUTE = '/projects/:id/merge_requests/:iid/notes';
