import { expect } from 'chai';
import { once } from 'node:events';
import { connect } from 'node:net';
import { startBridgeWorld, type BridgeWorld } from './bridge-world.ts';
import { deliverRaw, SECRET } from './http-client.ts';

/** An authenticated delivery that declares `length` bytes and sends them one small piece a second. */
async function slowBody(baseUrl: string, length: number): Promise<{ answer: Promise<string> }> {
  const url = new URL(baseUrl);
  const socket = connect({ host: url.hostname, port: Number(url.port) });
  await once(socket, 'connect');
  socket.write(
    `POST /webhook HTTP/1.1\r\nHost: x\r\nX-Gitlab-Token: ${SECRET}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${length}\r\n\r\n{"object_k`,
  );
  const drip = setInterval(() => socket.write('x'.repeat(64)), 1000);
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (text += chunk));
  const answer = new Promise<string>((resolve) => {
    const end = () => {
      clearInterval(drip);
      resolve(text);
    };
    socket.on('close', end);
    socket.on('error', end);
  });
  return { answer };
}

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
    // a small queue makes the crowding-out certain; the rule must hold for any limit.
    // The listing's clock stands still: on a loaded machine the flood takes longer than a
    // listing stays fresh, and a refresh is another behaviour (bridge-membership.test.ts)
    const now = Date.now();
    w = await startBridgeWorld({
      logLevel: 'info',
      sets: ['serve.queue_limit=50'],
      now: () => now,
    });
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

  it("A2 1,200 distinct non-members on the same merge request: one members listing, no single look-ups, and the Developer's command starts", async () => {
    const noise: string[] = [];
    for (let i = 0; i < 1200; i++) {
      const stranger = w.standIn.model.addUser({ username: `stranger${i}`, name: `Stranger ${i}` });
      noise.push(
        JSON.stringify(w.comment(w.s.mergeRequest, stranger, `/agent do thing ${i}`).hook),
      );
    }
    const developer = JSON.stringify(
      w.comment(w.s.mergeRequest, w.s.developer, '/agent fix the importer').hook,
    );
    const bodies = [...noise.slice(0, 1100), developer, ...noise.slice(1100)];
    const url = w.bridges[0]!.url;

    const results = await Promise.all(bodies.map((body) => deliverRaw(url, body)));
    await w.idle();

    expect(results.filter((r) => r.status !== 200 && r.status !== 202)).to.deep.equal([]);
    expect(w.triggerPipelines().map((p) => p.variables.MR_AGENT_TASK)).to.deep.equal([
      'fix the importer',
    ]);
    const paths = w.standIn.requests.entries.map((r) => r.path);
    expect(paths.filter((p) => /\/members\/all$/.test(p.split('?')[0]!))).to.have.length(1);
    expect(paths.filter((p) => /\/members\/all\/\d+$/.test(p))).to.deep.equal([]);
    // the noise was answered without entering the queue once the listing was known
    expect(results.filter((r) => r.body.reason === 'not-allowed').length).to.be.above(1000);
  });

  it('A2 100 slow 1 MiB bodies in flight: a real delivery is answered and its command started', async () => {
    const url = w.bridges[0]!.url;
    const slow = await Promise.all(Array.from({ length: 100 }, () => slowBody(url, 1 << 20)));
    const body = JSON.stringify(w.comment(w.s.issue, w.s.developer, '/agent fix it').hook);

    let slowAnswered = 0;
    for (const s of slow) void s.answer.then(() => slowAnswered++);
    const result = await deliverRaw(url, body);
    // answered while the slow bodies are still in flight, not after they were cut off
    const answeredBefore = slowAnswered;
    await w.idle();

    expect(result.status).to.equal(202);
    expect(answeredBefore).to.equal(0);
    expect(w.triggerPipelines().map((p) => p.variables.MR_AGENT_TASK)).to.deep.equal(['fix it']);
    const answers = await Promise.all(slow.map((s) => s.answer));
    expect(answers.filter((a) => !a.startsWith('HTTP/1.1 408'))).to.deep.equal([]);
  });
});
