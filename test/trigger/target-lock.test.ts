import { expect } from 'chai';
import { FakeClock } from '../../src/core/clock.ts';
import { createGitLabClient } from '../../src/gitlab/gitbeaker-adapter.ts';
import { bridgeGitLabFromPort } from '../../src/commands/gitlab-bridge.ts';
import { createTargetLock, LOCK_EMOJI } from '../../src/commands/target-lock.ts';
import type { BridgeGitLab } from '../../src/commands/bridge-port.ts';
import {
  seedScenario,
  startGitLabStandIn,
  type GitLabStandIn,
  type Scenario,
} from '../../src/testkit/gitlab-server/index.ts';

/** The lock bridge replicas share, held in GitLab as the bot's 🔒 award on the MR itself. */
describe('D3 the per-target lock held in GitLab', function () {
  this.timeout(10_000);
  let standIn: GitLabStandIn;
  let s: Scenario;
  let gitlab: BridgeGitLab;
  const target = () => ({
    kind: 'merge_request' as const,
    iid: s.mergeRequest.iid,
    sourceBranch: s.mergeRequest.sourceBranch,
    fork: false,
  });

  beforeEach(async () => {
    standIn = await startGitLabStandIn();
    s = await seedScenario(standIn.model);
    const port = createGitLabClient({
      url: standIn.url,
      token: s.botToken.value,
      clock: new FakeClock(),
      retry: { timeoutMs: 5000 },
    });
    gitlab = bridgeGitLabFromPort(port);
  });
  afterEach(() => standIn.close());

  it('D3 two holders on one merge request never overlap, and the award is gone afterwards', async () => {
    const locks = [1, 2].map(() => createTargetLock(gitlab, { selfId: s.bot.id })!);
    let inside = 0;
    let most = 0;
    const work = async () => {
      inside++;
      most = Math.max(most, inside);
      await new Promise((r) => setTimeout(r, 50));
      inside--;
      return 'ok';
    };
    const results = await Promise.all(
      [0, 1, 2, 3].map((i) => locks[i % 2]!.withLock(s.project.id, target(), work)),
    );
    expect(results).to.deep.equal([{ done: 'ok' }, { done: 'ok' }, { done: 'ok' }, { done: 'ok' }]);
    expect(most).to.equal(1);
    expect(standIn.model.targetAwards).to.deep.equal([]);
  });

  it('D3 a lock held past the wait is refused; a stale one (a dead holder) is taken over', async () => {
    const held = await gitlab.awardTargetEmoji!(s.project.id, target(), LOCK_EMOJI);
    expect(held.awarded).to.equal(true);
    const createdAt = Date.parse(standIn.model.targetAwards[0]!.createdAt);
    let clock = createdAt + 1000;
    const waiting = createTargetLock(gitlab, {
      selfId: s.bot.id,
      waitMs: 100,
      now: () => (clock += 30),
      sleep: () => Promise.resolve(),
    })!;
    expect(await waiting.withLock(s.project.id, target(), async () => 'ran')).to.equal(undefined);
    const later = createTargetLock(gitlab, {
      selfId: s.bot.id,
      now: () => createdAt + 3 * 60_000,
    })!;
    expect(await later.withLock(s.project.id, target(), async () => 'ran')).to.deep.equal({
      done: 'ran',
    });
    expect(standIn.model.targetAwards).to.deep.equal([]);
  });

  it("D3 the stand-in keeps one award of a name per user, and only its user may remove it (GitLab's emoji reactions API)", async () => {
    const first = await gitlab.awardTargetEmoji!(s.project.id, target(), LOCK_EMOJI);
    const again = await gitlab.awardTargetEmoji!(s.project.id, target(), LOCK_EMOJI);
    expect([first.awarded, again.awarded]).to.deep.equal([true, false]);
    const [award] = await gitlab.listTargetAwardEmoji!(s.project.id, target());
    expect(award).to.include({ name: LOCK_EMOJI });
    expect(award!.user.id).to.equal(s.bot.id);
    expect(award!.createdAt).to.be.a('string');
    const res = await fetch(
      `${standIn.url}/api/v4/projects/${s.project.id}/merge_requests/${s.mergeRequest.iid}/award_emoji/${award!.id}`,
      { method: 'DELETE', headers: { 'private-token': s.developerToken.value } },
    );
    expect(res.status).to.equal(401);
    await gitlab.removeTargetAwardEmoji!(s.project.id, target(), award!.id);
    await gitlab.removeTargetAwardEmoji!(s.project.id, target(), award!.id); // gone already: no error
    expect(standIn.model.targetAwards).to.deep.equal([]);
  });

  it('D3 an award GitLab keeps refusing while none is held (a job token) waits and gives up, never a tight loop', async () => {
    let awards = 0;
    const refusing: BridgeGitLab = {
      ...gitlab,
      awardTargetEmoji: async () => {
        if (++awards > 50) throw new Error('the lock kept asking GitLab in a tight loop');
        return { awarded: false };
      },
      listTargetAwardEmoji: async () => [],
    };
    let clock = 0;
    const slept: number[] = [];
    const lock = createTargetLock(refusing, {
      selfId: s.bot.id,
      waitMs: 1000,
      now: () => clock,
      sleep: async (ms) => {
        slept.push(ms);
        clock += ms;
      },
    })!;
    expect(await lock.withLock(s.project.id, target(), async () => 'ran')).to.equal(undefined);
    expect(slept.length, 'waits between tries').to.be.greaterThan(0);
    expect(awards).to.be.at.most(20);
  });

  it('D3 A3 a lock taken with acquire is held until released (a job lets it go behind its back)', async () => {
    const lock = createTargetLock(gitlab, { selfId: async () => s.bot.id })!;
    const held = await lock.acquire(s.project.id, target());
    expect(held).to.not.equal(undefined);
    expect(standIn.model.targetAwards.map((a) => a.name)).to.deep.equal([LOCK_EMOJI]);
    const other = createTargetLock(gitlab, { selfId: s.bot.id, waitMs: 0 })!;
    expect(await other.acquire(s.project.id, target()), 'held').to.equal(undefined);
    await held!.release();
    expect(standIn.model.targetAwards).to.deep.equal([]);
  });
});
