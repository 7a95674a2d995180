import { expect } from 'chai';
import { startBridgeWorld, type BridgeWorld } from './bridge-world.ts';
import { deliverRaw } from './http-client.ts';

/**
 * Issue 19 §8: comments from people who may not command the agent must not
 * crowd out those who may. 1,200 `/agent` comments by a non-member and a
 * Guest arrive at once around one Developer command; the Developer's command
 * still starts its pipeline, and the noise costs one access check per author.
 */
describe('issue 19 §8 bridge queue: noise from non-members never drops a Developer command', function () {
  this.timeout(60_000);
  let w: BridgeWorld;

  beforeEach(async () => {
    // a small queue makes the crowding-out certain; the rule must hold for any limit
    w = await startBridgeWorld({ logLevel: 'info', sets: ['serve.queue_limit=50'] });
  });
  afterEach(() => w.close());

  it("1,200 non-member and Guest commands do not drop a Developer's command", async () => {
    const stranger = w.standIn.model.addUser({ username: 'stranger', name: 'Not A Member' });
    const noise: string[] = [];
    for (let i = 0; i < 1200; i++) {
      const author = i % 2 === 0 ? stranger : w.s.guest;
      noise.push(JSON.stringify(w.comment(w.s.mergeRequest, author, `/agent do thing ${i}`).hook));
    }
    const developer = JSON.stringify(
      w.comment(w.s.issue, w.s.developer, '/agent fix the importer').hook,
    );
    const bodies = [...noise.slice(0, 1100), developer, ...noise.slice(1100)];
    const url = w.bridges[0]!.url;

    const results = await Promise.all(bodies.map((body) => deliverRaw(url, body)));
    await w.idle();

    expect(results.filter((r) => r.status !== 200 && r.status !== 202)).to.deep.equal([]);
    const pipelines = w.triggerPipelines();
    expect(pipelines.map((p) => p.variables.MR_AGENT_TASK)).to.deep.equal(['fix the importer']);
    // the role of each noisy author is looked up a bounded number of times, not 600 times each
    const memberLookups = w.standIn.requests.entries.filter((r) =>
      /\/members\/all\/\d+$/.test(r.path),
    );
    expect(memberLookups.length).to.be.below(20);
  });
});
