import { expect } from 'chai';
import { createGitLabClient } from '../../src/gitlab/gitbeaker-adapter.ts';
import { createSilentLogger } from '../../src/log/logger.ts';
import { FakeClock } from '../../src/core/clock.ts';
import {
  seedScenario,
  startGitLabStandIn,
  type GitLabStandIn,
  type Scenario,
} from '../../src/testkit/gitlab-server/index.ts';
import { dispatchCommand } from '../../src/commands/dispatch.ts';
import { bridgeGitLabFromPort } from '../../src/commands/gitlab-bridge.ts';
import { interpretTriggerPayload } from '../../src/commands/trigger-payload.ts';
import { commentWithHook } from './note-hook.ts';
import { payloadTargetLock } from '../../src/ci/payload-lock.ts';

/**
 * A3 over real HTTP: GitLab's webhook posts the Comments event to the
 * pipeline-trigger URL, the stand-in starts a pipeline carrying it as
 * TRIGGER_PAYLOAD, and "the job" applies the bridge's rules to it.
 */
describe('A3 TRIGGER_PAYLOAD from a webhook pointed at the trigger URL', function () {
  this.timeout(20_000);
  let standIn: GitLabStandIn;
  let s: Scenario;
  let token: string;

  beforeEach(async () => {
    standIn = await startGitLabStandIn();
    s = await seedScenario(standIn.model);
    token = standIn.model.addTriggerToken(s.project, s.maintainer.id).value;
  });
  afterEach(() => standIn.close());

  /** What GitLab does for every comment when the webhook URL is the trigger URL. */
  async function comment(body: string, author = s.developer) {
    const { note, hook } = commentWithHook(standIn.model, s, s.mergeRequest, author, body);
    const url = `${standIn.url}/api/v4/projects/${s.project.id}/ref/${s.project.defaultBranch}/trigger/pipeline?token=${token}`;
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gitlab-event': 'Note Hook' },
      body: JSON.stringify(hook),
    });
    expect(response.status).to.equal(201);
    const pipeline = standIn.model.pipelines.at(-1)!;
    return { note, pipeline };
  }

  /** The job's side: the same rules as the bridge, with its own pipeline as the run. */
  async function job(
    pipeline: { id: number; ref: string; variables: Record<string, string> },
    options: { locked?: boolean } = {},
  ) {
    const rules = { prefix: '/agent', self: { id: s.bot.id } };
    const decision = interpretTriggerPayload(pipeline.variables.TRIGGER_PAYLOAD, rules, {
      pipelineRef: pipeline.ref,
    });
    if (decision.kind === 'skip') return decision;
    const port = createGitLabClient({
      url: standIn.url,
      token: s.botToken.value,
      clock: new FakeClock(),
    });
    const own = { id: pipeline.id, status: 'running', ref: pipeline.ref };
    const gitlab = bridgeGitLabFromPort(port);
    return dispatchCommand(
      {
        gitlab,
        ...(options.locked
          ? { targetLock: payloadTargetLock(gitlab, createSilentLogger()), markStartedRun: true }
          : {}),
        logger: createSilentLogger(),
        minAccessLevel: 30,
        prefix: '/agent',
        start: async () => own,
        excludePipelineId: pipeline.id,
      },
      decision.request,
    );
  }

  it('every comment starts a pipeline; an ordinary one is "not a command" in the job', async () => {
    const { pipeline } = await comment('LGTM, thanks!');
    expect(pipeline.variables.TRIGGER_PAYLOAD).to.be.a('string');
    const outcome = await job(pipeline);
    expect(outcome).to.deep.include({ kind: 'skip', reason: 'not-a-command' });
    expect(outcome.kind === 'skip' && outcome.message).to.match(/^not a command: /);
  });

  it('a Developer command goes on in its own pipeline and is claimed with 👀', async () => {
    const { note, pipeline } = await comment('/agent fix the typo');
    const outcome = await job(pipeline);
    expect(outcome).to.deep.include({ kind: 'started' });
    expect(standIn.model.awards.filter((a) => a.noteId === note.id)).to.have.length(1);
  });

  it('the same command delivered twice: the first job goes on, the second is a duplicate', async () => {
    const { note, pipeline } = await comment('/agent fix the typo');
    const hook = JSON.parse(pipeline.variables.TRIGGER_PAYLOAD!) as unknown;
    const url = `${standIn.url}/api/v4/projects/${s.project.id}/ref/${s.project.defaultBranch}/trigger/pipeline?token=${token}`;
    await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gitlab-event': 'Note Hook' },
      body: JSON.stringify(hook),
    });
    const again = standIn.model.pipelines.at(-1)!;
    expect(again.id).to.not.equal(pipeline.id);
    expect((await job(pipeline)).kind).to.equal('started');
    expect((await job(again)).kind).to.equal('duplicate');
    expect(standIn.model.awards.filter((a) => a.noteId === note.id)).to.have.length(1);
  });

  it("a Guest's command is refused in the job", async () => {
    const { pipeline } = await comment('/agent fix the typo', s.guest);
    expect(await job(pipeline)).to.deep.equal({ kind: 'forbidden', accessLevel: 10 });
  });

  it('A6 two commands started together: the older pipeline runs and the newer joins it as steering, in either job order', async () => {
    for (const order of ['older first', 'newer first'] as const) {
      const first = await comment('/agent fix the typo');
      const second = await comment('/agent rename greet');
      standIn.model.setPipelineStatus(first.pipeline.id, 'running');
      standIn.model.setPipelineStatus(second.pipeline.id, 'running');
      expect(first.pipeline.id).to.be.below(second.pipeline.id);
      // both jobs are up before either decides: each sees the other running
      const [a, b] =
        order === 'older first'
          ? await Promise.all([job(first.pipeline), job(second.pipeline)])
          : (await Promise.all([job(second.pipeline), job(first.pipeline)])).reverse();
      expect([a.kind, b.kind], order).to.deep.equal(['started', 'joined']);
      expect(b.kind === 'joined' && b.pipeline.id, order).to.equal(first.pipeline.id);
      standIn.model.setPipelineStatus(first.pipeline.id, 'success');
      standIn.model.setPipelineStatus(second.pipeline.id, 'success');
    }
  });

  it('A6 four commands at once under the lock: exactly one job goes on, the other three join it', async () => {
    const comments = [];
    for (const text of ['fix the typo', 'rename greet', 'add a test', 'update the docs'])
      comments.push(await comment(`/agent ${text}`));
    for (const c of comments) standIn.model.setPipelineStatus(c.pipeline.id, 'running');

    const outcomes = await Promise.all(comments.map((c) => job(c.pipeline, { locked: true })));

    const started = outcomes.filter((o) => o.kind === 'started');
    expect(started, 'runs').to.have.length(1);
    const run = started[0]!.kind === 'started' ? started[0]!.pipeline.id : 0;
    for (const o of outcomes.filter((o) => o.kind !== 'started')) {
      expect(o).to.deep.include({ kind: 'joined' });
      expect(o.kind === 'joined' && o.pipeline.id).to.equal(run);
    }
    const runComment = comments.find((c) => c.pipeline.id === run)!;
    const marked = standIn.model.awards.filter((a) => a.name === 'arrow_forward');
    expect(marked.map((a) => [a.noteId, a.userId])).to.deep.equal([[runComment.note.id, s.bot.id]]);
    expect(standIn.model.targetAwards, 'the lock is gone').to.deep.equal([]);
  });

  it('A6 /agent stop in a TRIGGER_PAYLOAD job still cancels every active run, newer ones too', async () => {
    const older = await comment('/agent fix the typo');
    const stop = await comment('/agent stop');
    const newer = await comment('/agent rename greet');
    for (const p of [older, stop, newer]) standIn.model.setPipelineStatus(p.pipeline.id, 'running');
    const outcome = await job(stop.pipeline);
    expect(outcome.kind).to.equal('stopped');
    const ids = outcome.kind === 'stopped' ? outcome.pipelines.map((p) => p.id).sort() : [];
    expect(ids).to.deep.equal([older.pipeline.id, newer.pipeline.id].sort());
  });

  it('C1 a second instruction while the first job runs joins that run (no second run)', async () => {
    const first = await comment('/agent fix the typo');
    expect((await job(first.pipeline)).kind).to.equal('started');
    standIn.model.setPipelineStatus(first.pipeline.id, 'running');
    const second = await comment('/agent rename greet');
    expect((await job(second.pipeline)).kind).to.equal('joined');
  });
});
