import { expect } from 'chai';
import { WorkQueue } from '../../src/trigger/work-queue.ts';

interface Item {
  author: string;
  n: number;
  key?: string;
}

const name = (item: Item) => `${item.author}${item.n}`;

/** A queue running one item at a time; `release()` lets the running item finish. */
function gatedQueue(limit = 100, groupLimit?: number) {
  const order: string[] = [];
  const gates: (() => void)[] = [];
  const queue = new WorkQueue<Item>({
    concurrency: 1,
    limit,
    keyOf: (item) => item.key ?? name(item),
    groupOf: (item) => item.author,
    ...(groupLimit !== undefined ? { groupLimit } : {}),
    run: async (item) => {
      order.push(name(item));
      await new Promise<void>((go) => gates.push(go));
    },
    onError: () => undefined,
  });
  const settle = () => new Promise((r) => setImmediate(r));
  async function drain() {
    while (queue.size > 0 || queue.running > 0) {
      await settle();
      gates.shift()?.();
      await settle();
    }
  }
  return { queue, order, drain };
}

describe('A2 bridge work queue: fair across authors', () => {
  it("A2 one author's many commands never delay another author's first", async () => {
    const { queue, order, drain } = gatedQueue();
    for (const item of [
      { author: 'a', n: 1 },
      { author: 'a', n: 2 },
      { author: 'a', n: 3 },
      { author: 'a', n: 4 },
      { author: 'b', n: 1 },
      { author: 'a', n: 5 },
      { author: 'c', n: 1 },
      { author: 'b', n: 2 },
    ]) {
      expect(queue.offer(item)).to.equal('queued');
    }
    await drain();
    // a1 was running already; then each author's first, then round by round
    expect(order).to.deep.equal(['a1', 'b1', 'c1', 'a2', 'b2', 'a3', 'a4', 'a5']);
  });

  it("A2 an author arriving behind another author's backlog of six runs next, not after it", async () => {
    const { queue, order, drain } = gatedQueue();
    for (let n = 1; n <= 6; n++) queue.offer({ author: 'a', n });
    queue.offer({ author: 'b', n: 1 });
    await new Promise((r) => setImmediate(r));
    await drain();
    expect(order.indexOf('b1')).to.equal(1);
    expect(order).to.deep.equal(['a1', 'b1', 'a2', 'a3', 'a4', 'a5', 'a6']);
  });

  it('A2 commands on one target still run one after another and in order within an author', async () => {
    const { queue, order, drain } = gatedQueue();
    queue.offer({ author: 'a', n: 1, key: 'mr1' });
    queue.offer({ author: 'a', n: 2, key: 'mr1' });
    queue.offer({ author: 'b', n: 1, key: 'mr1' });
    queue.offer({ author: 'a', n: 3, key: 'mr2' });
    await drain();
    expect(order).to.deep.equal(['a1', 'b1', 'a2', 'a3']);
  });

  it('A2 without groups the queue is first in, first out', async () => {
    const order: number[] = [];
    const queue = new WorkQueue<number>({
      concurrency: 1,
      limit: 10,
      keyOf: String,
      run: async (n) => void order.push(n),
      onError: () => undefined,
    });
    for (const n of [1, 2, 3, 4]) queue.push(n);
    await queue.idle();
    expect(order).to.deep.equal([1, 2, 3, 4]);
  });

  it('A2 the per-author limit and the queue limit still refuse with their reason', () => {
    const { queue } = gatedQueue(4, 2);
    expect(queue.offer({ author: 'a', n: 1 })).to.equal('queued'); // runs at once
    expect(queue.offer({ author: 'a', n: 2 })).to.equal('queued');
    expect(queue.offer({ author: 'a', n: 3 })).to.equal('queued');
    expect(queue.offer({ author: 'a', n: 4 })).to.equal('group-full');
    expect(queue.offer({ author: 'b', n: 1 })).to.equal('queued');
    expect(queue.offer({ author: 'c', n: 1 })).to.equal('queued');
    expect(queue.offer({ author: 'd', n: 1 })).to.equal('full');
  });
});
