import { expect } from 'chai';
import type { IssueRec } from '../../src/testkit/gitlab-server/index.ts';
import { startBridgeWorld, type BridgeWorld } from './bridge-world.ts';
import { deliverRaw } from './http-client.ts';

/**
 * A2 under a flood: 1000 concurrent deliveries against one bridge and the
 * GitLab stand-in. 950 are ordinary comments of a few KB (answered at once,
 * no API calls); 50 are 10 distinct commands on 10 issues, each delivered
 * five times (GitLab redeliveries), which must start exactly 10 pipelines.
 * Prints the duration and the peak RSS; asserts only a loose memory bound.
 */
describe('A2 bridge under 1000 concurrent deliveries', function () {
  this.timeout(30_000);
  let w: BridgeWorld;

  before(async () => {
    w = await startBridgeWorld({ logLevel: 'info' });
  });
  after(() => w.close());

  it('answers every delivery with 2xx, triggers each command once, and keeps memory bounded', async () => {
    const filler = 'Looks good to me, a few nits below.\n'.repeat(80); // ~3 KB
    const issues: IssueRec[] = Array.from({ length: 10 }, (_, i) =>
      w.standIn.model.createIssue({
        project: w.s.project,
        title: `issue ${i}`,
        description: '',
        labels: [],
        authorId: w.s.developer.id,
      }),
    );
    const commands = issues.map((issue, i) =>
      w.comment(issue, w.s.developer, `/agent task number ${i}`),
    );
    const deliveries: string[] = [];
    for (let i = 0; i < 950; i++) {
      const { hook } = w.comment(w.s.mergeRequest, w.s.developer, `${filler}#${i}`);
      deliveries.push(JSON.stringify(hook));
    }
    for (const { hook } of commands)
      for (let k = 0; k < 5; k++) deliveries.push(JSON.stringify(hook));
    const url = w.bridges[0]!.url;
    // warm up the HTTP path so the figure is about load, not the JIT
    await Promise.all(deliveries.slice(0, 50).map((body) => deliverRaw(url, body)));

    global.gc?.();
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 5);
    const started = performance.now();
    const results = await Promise.all(deliveries.map((body) => deliverRaw(url, body)));
    const answeredMs = performance.now() - started;
    await w.idle();
    const doneMs = performance.now() - started;
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);

    const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
    console.log(
      `      1000 deliveries: all answered in ${answeredMs.toFixed(0)} ms, handled in ${doneMs.toFixed(0)} ms; ` +
        `RSS ${mb(baseline)} MB → peak ${mb(peak)} MB (+${mb(peak - baseline)} MB)`,
    );

    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s !== 200 && s !== 202)).to.deep.equal([]);
    expect(results.filter((r) => r.body.reason === 'not-a-command')).to.have.length(950);
    const pipelines = w.triggerPipelines();
    expect(pipelines).to.have.length(10);
    expect(new Set(pipelines.map((p) => p.variables.MR_AGENT_ISSUE_IID)).size).to.equal(10);
    expect(w.bridges[0]!.counters()).to.include({ failed: 0, dropped: 0 });
    // a loose bound: buffered bodies are capped at 16 MiB, everything else is small
    expect(peak - baseline).to.be.below(300 * 1024 * 1024);
  });
});
