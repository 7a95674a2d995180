import { expect } from 'chai';
import { systemClock } from '../../src/core/clock.ts';
import type { GitLabPort } from '../../src/core/gitlab-port.ts';
import { CancelledError, ExternalServiceError } from '../../src/errors/errors.ts';
import { createGitLabClient } from '../../src/gitlab/gitbeaker-adapter.ts';
import { guardGitLab, RequestBudget } from '../../src/gitlab/request-budget.ts';
import {
  seedScenario,
  startGitLabStandIn,
  type GitLabStandIn,
  type Scenario,
} from '../../src/testkit/gitlab-server/index.ts';

/**
 * The GitLab port bounded by the job's request budget and its abort signal
 * (issue 18: a silent GitLab fails the job in bounded time; nothing is done
 * on GitLab after a cancel), over real HTTP against the stand-in.
 */
describe('gitlab/request-budget (against the GitLab stand-in)', function () {
  this.timeout(20_000);
  let standIn: GitLabStandIn;
  let s: Scenario;
  let client: GitLabPort;

  beforeEach(async () => {
    standIn = await startGitLabStandIn();
    s = await seedScenario(standIn.model);
    client = createGitLabClient({ url: standIn.url, token: s.botToken.value, clock: systemClock });
  });
  afterEach(async () => {
    standIn.faults.clear();
    await standIn.close();
  });

  it('O4 a GitLab that does not answer: the call fails when the budget is spent, later calls at once', async () => {
    standIn.faults.add({ hang: true, times: Infinity });
    const gitlab = guardGitLab(client, { budget: new RequestBudget(400) });

    const started = Date.now();
    const first = await gitlab.getProject(s.project.id).catch((e: unknown) => e);
    const took = Date.now() - started;
    const second = await gitlab.currentUser().catch((e: unknown) => e);

    expect(first).to.be.instanceOf(ExternalServiceError);
    expect((first as Error).message).to.contain('gitlab.request_budget_sec');
    expect(took).to.be.within(350, 3000);
    expect(second).to.be.instanceOf(ExternalServiceError);
    expect(Date.now() - started - took).to.be.below(100);
  });

  it('any answer, a 404 too, starts the budget afresh', async () => {
    const refuse = () =>
      standIn.faults.add({ method: 'GET', path: '/user', status: 429, retryAfter: 3600 });
    const pause = () => new Promise((resolve) => setTimeout(resolve, 600));
    const gitlab = guardGitLab(client, { budget: new RequestBudget(1000) });

    refuse();
    await gitlab.currentUser().catch(() => undefined);
    await pause();
    const missing = await gitlab.getMergeRequest(s.project.id, 999).catch((e: unknown) => e);
    await pause();
    refuse();
    await gitlab.currentUser().catch(() => undefined);
    // 1.2 s after the first refusal, but the 404 in between was an answer
    const project = await gitlab.getProject(s.project.id);

    expect(standIn.requests.entries.filter((e) => e.status === 429)).to.have.length(2);
    expect((missing as ExternalServiceError).status).to.equal(404);
    expect(project.id).to.equal(s.project.id);
  });

  it('O4 after the abort signal a call in flight is given up and no further call goes out', async () => {
    standIn.faults.add({ method: 'GET', path: /protected_branches/, hang: true });
    const controller = new AbortController();
    const gitlab = guardGitLab(client, { signal: controller.signal });

    const waiting = gitlab.listProtectedBranches(s.project.id).catch((e: unknown) => e);
    await new Promise((resolve) => setTimeout(resolve, 100));
    controller.abort();
    const before = standIn.requests.entries.length;
    const later = await gitlab.getProject(s.project.id).catch((e: unknown) => e);

    expect(await waiting).to.be.instanceOf(CancelledError);
    expect(later).to.be.instanceOf(CancelledError);
    expect(standIn.requests.entries.length).to.equal(before);
  });
});
