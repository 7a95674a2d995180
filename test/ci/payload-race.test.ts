import { expect } from 'chai';
import type { NoteRec, PipelineRec, UserRec } from '../../src/testkit/gitlab-server/records.ts';
import { parseMarker, renderMarker } from '../../src/report/marker.ts';
import { LOCK_EMOJI } from '../../src/commands/target-lock.ts';
import {
  FAREWELL_PLANNING,
  FAREWELL_RUN,
  FAREWELL_WORK,
  JobWorld,
  requestsReached,
  type JobRun,
} from './job-world.ts';

/**
 * Two `/agent` comments on one merge request in the zero-infrastructure setup
 * (the webhook pointed at the trigger URL): GitLab starts a pipeline for each,
 * and both jobs apply the bridge's rules at once. Whole `mr-agent ci` jobs,
 * in-process, against the GitLab stand-in over HTTP; the pipelines come from
 * the trigger URL as GitLab makes them.
 */
describe('A3 A6 TRIGGER_PAYLOAD jobs racing on one merge request', function () {
  this.timeout(120_000);
  let world: JobWorld;
  let triggerToken: string;

  beforeEach(async () => {
    world = await JobWorld.start();
    triggerToken = world.standIn.model.addTriggerToken(
      world.s.project,
      world.s.maintainer.id,
    ).value;
    // the comment pipelines run on the default branch: the jobs fetch the merge request's head
    await world.standIn.model.updateMergeRequestRef(world.s.mergeRequest);
  });
  afterEach(async () => {
    await world.close();
  });

  interface Commented {
    note: NoteRec;
    pipeline: PipelineRec;
    payload: string;
  }

  /** What GitLab does with a comment when the webhook URL is the trigger URL. */
  async function comment(body: string, author: UserRec = world.s.developer): Promise<Commented> {
    const { standIn, s } = world;
    const note = standIn.model.addNote({ on: s.mergeRequest, body, authorId: author.id });
    const payload = JSON.stringify(standIn.hooks.notePayload(note, s.project));
    const url = `${standIn.url}/api/v4/projects/${s.project.id}/ref/${s.project.defaultBranch}/trigger/pipeline?token=${triggerToken}`;
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gitlab-event': 'Note Hook' },
      body: payload,
    });
    expect(response.status).to.equal(201);
    const { id } = (await response.json()) as { id: number };
    const pipeline = standIn.model.pipelines.find((p) => p.id === id)!;
    return { note, pipeline, payload };
  }

  /** The job of a comment's pipeline, scripted for a whole one-action run should it go on. */
  function job(commented: Commented): Promise<JobRun> {
    return world.job({
      pipeline: commented.pipeline,
      replies: FAREWELL_RUN,
      variables: { TRIGGER_PAYLOAD: commented.payload },
    });
  }

  const botRepliesTo = (commented: Commented) =>
    world.standIn.model.notes.filter(
      (n) =>
        n.discussionId === commented.note.discussionId &&
        n.id !== commented.note.id &&
        n.authorId === world.s.bot.id,
    );

  const commitsOnBranch = (since: string) =>
    world.git(world.s.project.repoDir, 'rev-list', '--count', `${since}..${world.branchHead()}`);

  const ran = (job: JobRun) => job.llm.requests.length > 0;

  it('A6 A3 two commands started together: exactly one run (one progress note, one push); the other job exits 0 with one reply naming that run', async () => {
    const head = world.branchHead();
    const first = await comment('/agent add a farewell function');
    const second = await comment('/agent add a farewell function, please');

    // both pipelines run, both jobs decide at the same moment
    const [a, b] = await Promise.all([job(first), job(second)]);

    expect(a.code, a.stderr).to.equal(0);
    expect(b.code, b.stderr).to.equal(0);
    expect([a, b].filter(ran), 'jobs that ran the model').to.have.length(1);
    const winner = ran(a) ? a : b;
    const [loser, loserComment] = ran(a) ? [b, second] : [a, first];
    expect(world.progressNotes(), 'progress notes').to.have.length(1);
    expect(parseMarker(world.progressNotes()[0]!.body)?.pipeline).to.equal(
      String(winner.pipelineId),
    );
    expect(commitsOnBranch(head), 'pushes to the branch').to.equal('1');
    expect(loser.stdout + loser.stderr).to.match(/nothing to do|joined|already/i);
    const replies = botRepliesTo(loserComment);
    expect(replies, 'replies in the other thread').to.have.length(1);
    expect(parseMarker(replies[0]!.body), 'the reply names the run').to.deep.include({
      pipeline: String(winner.pipelineId),
    });
    expect(world.standIn.model.targetAwards, 'no lock left on the merge request').to.deep.equal([]);
  });

  it("A6 A3 a command is not left waiting on an older comment's pipeline that never becomes a run (a Guest's /agent)", async () => {
    const guest = await comment('/agent delete everything', world.s.guest);
    const developer = await comment('/agent add a farewell function');

    // the developer's job is picked up first; the Guest's pipeline is still active
    const developerJob = await job(developer);
    world.standIn.model.setPipelineStatus(developer.pipeline.id, 'running');
    const refused = await job(guest);

    expect(developerJob.code, developerJob.stderr).to.equal(0);
    expect(ran(developerJob), "the developer's command ran").to.equal(true);
    expect(world.progressNotes()).to.have.length(1);
    expect(refused.code, refused.stderr).to.equal(0);
    expect(ran(refused)).to.equal(false);
    expect(botRepliesTo(developer)).to.deep.equal([]);
  });

  it('A6 A3 an older command whose job starts late joins the run the newer one started (whichever job a runner picks up first runs)', async () => {
    const older = await comment('/agent add a farewell function');
    const newer = await comment('/agent add a farewell function, please');

    let late: JobRun | undefined;
    const first = await world.job({
      pipeline: newer.pipeline,
      // the run plans slowly: the older comment's job is picked up meanwhile
      replies: [{ ...FAREWELL_PLANNING, delay_ms: 2500 }, ...FAREWELL_WORK],
      variables: { TRIGGER_PAYLOAD: newer.payload },
      whileRunning: async ({ llm }) => {
        await requestsReached(llm, 1, 15_000);
        late = await job(older);
      },
    });

    expect(first.code, first.stderr).to.equal(0);
    expect(ran(first)).to.equal(true);
    expect(late!.code, late!.stderr).to.equal(0);
    expect(ran(late!)).to.equal(false);
    const [reply] = botRepliesTo(older);
    expect(parseMarker(reply?.body ?? '')).to.deep.include({
      pipeline: String(newer.pipeline.id),
      state: 'joined',
    });
    expect(world.progressNotes()).to.have.length(1);
  });

  it('A6 A3 the job decides under the lock a run holds for its closing read: an instruction that comes as the run ends is not told "joined"', async () => {
    const { model } = world.standIn;
    const { s } = world;
    // a run on the merge request, its progress note still "running", in its closing read (holding the lock)
    const { pipeline: run } = await model.createPipeline({
      project: s.project,
      ref: s.project.defaultBranch,
      source: 'trigger',
      userId: s.maintainer.id,
      status: 'running',
      variables: { MR_AGENT_MR_IID: String(s.mergeRequest.iid), MR_AGENT_TASK: 'greet' },
    });
    const progress = model.addNote({
      on: s.mergeRequest,
      body: `${renderMarker({ kind: 'progress', pipeline: String(run.id), state: 'running' })}\n⏳ working`,
      authorId: s.bot.id,
    });
    const lock = await fetch(
      `${world.standIn.url}/api/v4/projects/${s.project.id}/merge_requests/${s.mergeRequest.iid}/award_emoji`,
      {
        method: 'POST',
        headers: { 'private-token': s.botToken.value, 'content-type': 'application/json' },
        body: JSON.stringify({ name: LOCK_EMOJI }),
      },
    );
    expect(lock.status).to.equal(201);
    const instruction = await comment('/agent also add a test');

    const lockTries = () =>
      world.standIn.requests.entries.filter(
        (e) => e.method === 'POST' && /\/merge_requests\/\d+\/award_emoji$/.test(e.path),
      ).length;
    let settled = false;
    const asking = job(instruction).finally(() => (settled = true));
    // the job waits for the lock (or, without one, has long answered)
    const deadline = Date.now() + 10_000;
    while (lockTries() < 2 && Date.now() < deadline && !settled) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // the run's closing read: its final note is up, then it lets the lock go
    progress.body = `${renderMarker({ kind: 'progress', pipeline: String(run.id), state: 'done' })}\n✅ done`;
    model.targetAwards.splice(0);
    const answered = await asking;

    expect(answered.code, answered.stderr).to.equal(0);
    const [reply] = botRepliesTo(instruction);
    expect(reply, 'a reply').to.not.equal(undefined);
    expect(
      parseMarker(reply!.body)?.state,
      'not told "joined" by a run that stopped listening',
    ).to.not.equal('joined');
  });

  it('A6 C1 A3 an instruction while the run delivers is the follow-up run, and this job carries it out (as the reply says)', async () => {
    const { model } = world.standIn;
    const { s } = world;
    const { pipeline: run } = await model.createPipeline({
      project: s.project,
      ref: s.project.defaultBranch,
      source: 'trigger',
      userId: s.maintainer.id,
      status: 'running',
      variables: { MR_AGENT_MR_IID: String(s.mergeRequest.iid), MR_AGENT_TASK: 'greet' },
    });
    // the run's final note is up; its pipeline is still finishing
    model.addNote({
      on: s.mergeRequest,
      body: `${renderMarker({ kind: 'progress', pipeline: String(run.id), state: 'done' })}\n✅ done`,
      authorId: s.bot.id,
    });
    const instruction = await comment('/agent add a farewell function');

    const followUp = await job(instruction);

    expect(followUp.code, followUp.stderr).to.equal(0);
    const [reply] = botRepliesTo(instruction);
    expect(reply?.body).to.include(`pipeline #${instruction.pipeline.id}`);
    expect(ran(followUp), 'the follow-up ran').to.equal(true);
    const notes = world.progressNotes().map((n) => parseMarker(n.body));
    expect(notes.map((m) => m?.pipeline)).to.include(String(instruction.pipeline.id));
    const marks = model.awards.filter((a) => a.noteId === instruction.note.id).map((a) => a.name);
    expect(marks, 'the next command finds it as the run').to.deep.equal(['eyes', 'arrow_forward']);
  });

  it('A6 A3 a GitLab that refuses the lock award (403): the job stops with a clear error and starts no run', async () => {
    const commented = await comment('/agent add a farewell function');
    world.standIn.faults.add({
      method: 'POST',
      path: new RegExp(`/merge_requests/${world.s.mergeRequest.iid}/award_emoji$`),
      status: 403,
    });
    const unhandled: unknown[] = [];
    const hear = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', hear);
    try {
      const failed = await job(commented);
      expect(failed.code, failed.stderr).to.not.equal(0);
      expect(ran(failed)).to.equal(false);
      expect(failed.stderr).to.match(/award_emoji answered HTTP 403/);
      expect(failed.stderr).to.not.match(/\n\s+at /);
      expect(world.progressNotes()).to.deep.equal([]);
    } finally {
      process.off('unhandledRejection', hear);
    }
    expect(unhandled).to.deep.equal([]);
  });

  it('A6 A3 a lock left by a job that died holding it is taken over once stale, and none is left behind', async () => {
    const { model } = world.standIn;
    const { s } = world;
    const threeMinutesAgo = new Date(Date.now() - 180_000).toISOString();
    model.targetAwards.push({
      id: model.nextId(),
      awardableType: 'MergeRequest',
      awardableId: s.mergeRequest.id,
      userId: s.bot.id,
      name: LOCK_EMOJI,
      createdAt: threeMinutesAgo,
    });
    const commented = await comment('/agent add a farewell function');

    const done = await job(commented);

    expect(done.code, done.stderr).to.equal(0);
    expect(ran(done)).to.equal(true);
    expect(model.targetAwards).to.deep.equal([]);
    const marks = model.awards.filter((a) => a.noteId === commented.note.id).map((a) => a.name);
    expect(marks, 'claimed, then marked as the run').to.deep.equal(['eyes', 'arrow_forward']);
  });
});
