import { expect } from 'chai';
import { explainCancel, type CancelLookup } from '../../src/ci/cancel-cause.ts';
import { FakeClock } from '../../src/core/clock.ts';
import { createGitLabClient } from '../../src/gitlab/gitbeaker-adapter.ts';
import { createSilentLogger } from '../../src/log/logger.ts';
import {
  seedScenario,
  startGitLabStandIn,
  type GitLabStandIn,
  type Scenario,
} from '../../src/testkit/gitlab-server/index.ts';

/**
 * How the job tells who stopped it (src/ci/cancel-cause.ts), through the
 * gitbeaker adapter over HTTP against the GitLab stand-in: the bounds that
 * keep the final note in time, and what counts as a stop.
 */
describe('ci/cancel-cause: who stopped the job, asked of GitLab within a bound', function () {
  this.timeout(20_000);
  let standIn: GitLabStandIn;
  let s: Scenario;

  beforeEach(async () => {
    standIn = await startGitLabStandIn();
    s = await seedScenario(standIn.model);
  });
  afterEach(async () => {
    standIn.faults.clear();
    await standIn.close();
  });

  async function lookup(overrides: Partial<CancelLookup> = {}): Promise<CancelLookup> {
    const { pipeline, jobs } = await standIn.model.createPipeline({
      project: s.project,
      ref: s.mergeRequest.sourceBranch,
      source: 'trigger',
      userId: s.maintainer.id,
      status: 'running',
      variables: {},
    });
    return {
      gitlab: createGitLabClient({
        url: standIn.url,
        token: s.botToken.value,
        clock: new FakeClock(),
        retry: { timeoutMs: 5000 },
      }),
      project: s.project.id,
      on: { type: 'merge_request', iid: s.mergeRequest.iid },
      pipelineId: pipeline.id,
      jobId: jobs[0]!.id,
      since: Date.parse(pipeline.createdAt),
      prefix: '/agent',
      botId: s.bot.id,
      now: Date.now,
      logger: createSilentLogger(),
      ...overrides,
    };
  }

  it('O4 a GitLab that does not answer after the cancel: "cancelled in GitLab" within the bound, no wait for the requests', async () => {
    const l = await lookup({ lookupMs: 300 });
    standIn.model.addNote({ on: s.mergeRequest, body: '/agent stop', authorId: s.developer.id });
    standIn.faults.add({ hang: true, times: Infinity });
    const started = Date.now();
    expect(await explainCancel(l)).to.deep.equal({ kind: 'gitlab-cancel' });
    expect(Date.now() - started).to.be.below(1500);
  });

  it('O4 only a stop command counts: a comment that quotes `/agent stop` in code, the bot’s own note and another verb do not', async () => {
    const l = await lookup();
    standIn.model.setPipelineStatus(l.pipelineId, 'canceled');
    for (const body of ['`/agent stop`', '> /agent stop', '/agent stop the retry loop'])
      standIn.model.addNote({ on: s.mergeRequest, body, authorId: s.developer.id });
    standIn.model.addNote({ on: s.mergeRequest, body: '/agent stop', authorId: s.bot.id });
    expect(await explainCancel(l)).to.deep.equal({ kind: 'gitlab-cancel' });
    standIn.model.addNote({ on: s.mergeRequest, body: '/agent stop', authorId: s.maintainer.id });
    expect(await explainCancel(l)).to.deep.equal({ kind: 'stop-command', by: 'maint' });
  });

  it('O4 a stop said before the pipeline was created stopped another run, not this one', async () => {
    standIn.model.addNote({ on: s.mergeRequest, body: '/agent stop', authorId: s.developer.id });
    const l = await lookup({ since: Date.now() + 60_000 });
    standIn.model.setPipelineStatus(l.pipelineId, 'canceled');
    expect(await explainCancel(l)).to.deep.equal({ kind: 'gitlab-cancel' });
  });

  it('O4 the timeout needs both CI_JOB_TIMEOUT and CI_JOB_STARTED_AT; near the limit counts (the runner signals at it)', async () => {
    const now = Date.now();
    const l = await lookup({ now: () => now });
    expect(
      await explainCancel({ ...l, timeoutSeconds: 600, startedAt: now - 597_000 }),
    ).to.deep.equal({ kind: 'timeout', limitSeconds: 600 });
    expect(
      (await explainCancel({ ...l, timeoutSeconds: 600, startedAt: now - 300_000 })).kind,
    ).to.equal('gitlab-cancel');
    expect((await explainCancel({ ...l, timeoutSeconds: 600 })).kind).to.equal('gitlab-cancel');
  });
});
