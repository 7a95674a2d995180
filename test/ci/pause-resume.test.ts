import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseMarker } from '../../src/report/marker.ts';
import { action, planWith } from '../support/plans.ts';
import { noteHook } from '../trigger/note-hook.ts';
import { FAREWELL_WORK, JobWorld } from './job-world.ts';

const planning = {
  purpose: 'planning',
  json: planWith([action('task_1', 'Add farewell()')], ['farewell() exists']),
};

/**
 * Seed 002's pause and resume verbs in CI (issue 23), whole `mr-agent ci`
 * jobs over HTTP against the GitLab stand-in: `/agent pause` (a
 * TRIGGER_PAYLOAD job) leaves a ⏸ on the running run's progress note; the
 * run's job finds it before its next action and ends as `paused`;
 * `/agent resume` starts a run that takes the paused run's plan over.
 */
describe('seed 002 pause/resume verbs in CI (issue 23)', function () {
  this.timeout(90_000);
  let world: JobWorld;

  beforeEach(async () => {
    world = await JobWorld.start();
  });
  afterEach(async () => {
    await world.close();
  });

  /** A comment on the MR as GitLab's webhook hands it to a TRIGGER_PAYLOAD job. */
  function payload(body: string): { noteId: number; discussionId: string; json: string } {
    const note = world.standIn.model.addNote({
      on: world.s.mergeRequest,
      body,
      authorId: world.s.developer.id,
    });
    const hook = noteHook({
      note: body,
      noteId: note.id,
      user: { id: world.s.developer.id, username: world.s.developer.username },
      projectId: world.s.project.id,
      iid: world.s.mergeRequest.iid,
      sourceBranch: world.s.mergeRequest.sourceBranch,
      discussionId: note.discussionId,
    });
    return { noteId: note.id, discussionId: note.discussionId, json: JSON.stringify(hook) };
  }

  const repliesTo = (asked: { noteId: number; discussionId: string }) =>
    world.standIn.model.notes.filter(
      (n) => n.discussionId === asked.discussionId && n.id !== asked.noteId,
    );

  it('seed 002 `/agent pause` stops the run before its next action with a resumable state; `/agent resume` carries it on with the paused plan', async () => {
    // the plan job hands over; its pipeline waits for the child (`strategy: depend`)
    const plan = await world.job({
      step: 'plan',
      replies: [planning],
      variables: world.bridgeVariables('run', 'add a farewell function'),
    });
    expect(plan.code, plan.stderr).to.equal(0);
    world.standIn.model.setPipelineStatus(plan.pipelineId, 'running');
    const [note] = world.progressNotes();
    expect(parseMarker(note!.body)?.state).to.equal('running');

    const asked = payload('/agent pause');
    const pause = await world.job({ replies: [], variables: { TRIGGER_PAYLOAD: asked.json } });

    expect(pause.code, pause.stderr).to.equal(0);
    const awards = world.standIn.model.awards.filter((a) => a.noteId === note!.id);
    expect(awards.map((a) => [a.name, a.userId])).to.deep.equal([['pause_button', world.s.bot.id]]);
    const [reply] = repliesTo(asked);
    expect(reply?.body)
      .to.include('will pause after its current step')
      .and.include('`/agent resume`');

    const run = await world.job({
      step: 'run',
      replies: [],
      variables: { CI_PIPELINE_SOURCE: 'parent_pipeline' },
      artifactsFrom: plan,
    });

    expect(run.code, run.stderr).to.equal(0);
    expect(run.llm.requests).to.have.length(0);
    const paused = world.progressNotes();
    expect(paused.map((n) => n.id)).to.deep.equal([note!.id]);
    expect(parseMarker(paused[0]!.body)?.state).to.equal('paused');
    expect(paused[0]!.body).to.include('⏸️ Paused').and.include('`/agent resume`');
    world.standIn.model.setPipelineStatus(plan.pipelineId, 'success');

    const status = payload('/agent status');
    await world.job({ replies: [], variables: { TRIGGER_PAYLOAD: status.json } });
    expect(repliesTo(status)[0]?.body).to.include('⏸️ Paused').and.include('`/agent resume`');

    const resumed = await world.job({
      replies: FAREWELL_WORK,
      variables: world.bridgeVariables('resume', ''),
    });

    expect(resumed.code, resumed.stderr).to.equal(0);
    resumed.llm.assertAllUsed();
    expect(resumed.llm.requests.map((r) => r.purpose)).not.to.include('planning');
    const last = world.progressNotes().at(-1)!;
    expect(parseMarker(last.body)?.state).to.equal('complete');
    expect(last.body).to.contain('### ✅ Done · add a farewell function');
    const history = readFileSync(
      path.join(resumed.dir, `.mr-agent/planning_history/job-${resumed.jobId}.jsonl`),
      'utf8',
    );
    expect(history).to.include(`"reused_from":{"task_id":"job-${plan.jobId}"`);
  });

  it('seed 002 `/agent pause` with no active run says there is nothing to pause and marks nothing', async () => {
    const asked = payload('/agent pause');
    const pause = await world.job({ replies: [], variables: { TRIGGER_PAYLOAD: asked.json } });

    expect(pause.code, pause.stderr).to.equal(0);
    expect(repliesTo(asked)[0]?.body).to.include('nothing to pause');
    expect(world.standIn.model.awards.filter((a) => a.name === 'pause_button')).to.deep.equal([]);
  });
});
