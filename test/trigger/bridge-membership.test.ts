import { expect } from 'chai';
import { startBridgeWorld, type BridgeWorld } from './bridge-world.ts';
import { deliverRaw } from './http-client.ts';

/**
 * The bridge answers "who may command" from one members listing per project,
 * but a listing is a snapshot: someone added or promoted after it was read
 * must not be refused until it expires. An author the listing does not name
 * (or names below the role), once the listing is a few seconds old, waits for
 * one fresh listing instead; a flood of strangers still costs a bounded
 * number of listings and no single look-ups.
 */
describe('A2 bridge membership freshness: a member added after the members listing is heard', function () {
  this.timeout(60_000);
  let w: BridgeWorld;
  let offsetMs = 0;
  const base = Date.now();

  beforeEach(async () => {
    offsetMs = 0;
    w = await startBridgeWorld({ logLevel: 'info', now: () => base + offsetMs });
  });
  afterEach(() => w.close());

  const listings = () =>
    w.standIn.requests.entries.filter((r) => /\/members\/all$/.test(r.path.split('?')[0]!)).length;
  const singleLookUps = () =>
    w.standIn.requests.entries.filter((r) => /\/members\/all\/\d+$/.test(r.path.split('?')[0]!))
      .length;

  async function command(
    on: 'issue' | 'mr',
    author: { id: number; username: string },
    text: string,
  ) {
    const target = on === 'issue' ? w.s.issue : w.s.mergeRequest;
    const user = w.standIn.model.users.get(author.id)!;
    const result = await deliverRaw(
      w.bridges[0]!.url,
      JSON.stringify(w.comment(target, user, text).hook),
    );
    await w.idle();
    return result;
  }

  it('A2 a Developer added 6 s after the first listing gets their command started', async () => {
    const stranger = w.standIn.model.addUser({ username: 'early', name: 'Early Stranger' });
    await command('mr', stranger, '/agent do something');
    expect(listings()).to.equal(1);

    const newcomer = w.standIn.model.addUser({ username: 'newcomer', name: 'New Developer' });
    w.standIn.model.addMember(w.s.project, newcomer.id, 30);
    offsetMs = 6_000;
    const result = await command('issue', newcomer, '/agent fix the importer');

    expect(result.status).to.equal(202);
    expect(w.triggerPipelines().map((p) => p.variables.MR_AGENT_TASK)).to.deep.equal([
      'fix the importer',
    ]);
    expect(listings()).to.equal(2);
    expect(singleLookUps()).to.equal(0);
  });

  it('A2 a Guest promoted to Developer after the listing gets their command started', async () => {
    await command('mr', w.s.guest, '/agent do something');
    expect(w.triggerPipelines()).to.deep.equal([]);

    const membership = w.standIn.model.members.find(
      (m) => m.userId === w.s.guest.id && m.scope === w.s.project.id,
    )!;
    membership.accessLevel = 30;
    offsetMs = 6_000;
    await command('issue', w.s.guest, '/agent fix the importer');

    expect(w.triggerPipelines().map((p) => p.variables.MR_AGENT_TASK)).to.deep.equal([
      'fix the importer',
    ]);
  });

  it('A2 a stranger within 5 s of a listing is refused at once, without another listing', async () => {
    const first = w.standIn.model.addUser({ username: 'first', name: 'First' });
    await command('mr', first, '/agent one');
    const second = w.standIn.model.addUser({ username: 'second', name: 'Second' });
    offsetMs = 2_000;
    const result = await command('mr', second, '/agent two');

    expect(result.body).to.deep.include({ status: 'ignored', reason: 'not-allowed' });
    expect(listings()).to.equal(1);
  });

  it("A2 1,200 distinct non-members across a refresh: at most 2 listings, no single look-ups, and the Developer's command starts", async () => {
    const noise: string[] = [];
    for (let i = 0; i < 1200; i++) {
      const stranger = w.standIn.model.addUser({ username: `stranger${i}`, name: `Stranger ${i}` });
      noise.push(JSON.stringify(w.comment(w.s.mergeRequest, stranger, `/agent do ${i}`).hook));
    }
    const developer = JSON.stringify(
      w.comment(w.s.issue, w.s.developer, '/agent fix the importer').hook,
    );
    const url = w.bridges[0]!.url;
    const firstHalf = await Promise.all(noise.slice(0, 600).map((body) => deliverRaw(url, body)));
    offsetMs = 6_000;
    const secondHalf = await Promise.all(
      [...noise.slice(600), developer].map((body) => deliverRaw(url, body)),
    );
    await w.idle();

    const results = [...firstHalf, ...secondHalf];
    expect(results.filter((r) => r.status !== 200 && r.status !== 202)).to.deep.equal([]);
    expect(w.triggerPipelines().map((p) => p.variables.MR_AGENT_TASK)).to.deep.equal([
      'fix the importer',
    ]);
    expect(listings()).to.be.at.most(2);
    expect(singleLookUps()).to.equal(0);
  });
});
