import { expect } from 'chai';
import { ByteBudget } from '../../src/trigger/byte-budget.ts';
import { WorkQueue } from '../../src/trigger/work-queue.ts';

describe('A2 bridge memory bounds', () => {
  it('ByteBudget never lends more than its capacity and grants waiters in order', async () => {
    const budget = new ByteBudget(100);
    const releaseA = await budget.reserve(60);
    const granted: string[] = [];
    const b = budget.reserve(50).then((release) => (granted.push('b'), release));
    const c = budget.reserve(10).then((release) => (granted.push('c'), release));
    await Promise.resolve();
    expect(granted).to.deep.equal([]); // c fits, but waits behind b
    expect(budget.inUse).to.equal(60);
    releaseA();
    const [releaseB, releaseC] = await Promise.all([b, c]);
    expect(granted).to.deep.equal(['b', 'c']);
    expect(budget.inUse).to.equal(60);
    releaseB();
    releaseB(); // a second release is ignored
    releaseC();
    expect(budget.inUse).to.equal(0);
  });

  it('ByteBudget caps one reservation at the capacity', async () => {
    const budget = new ByteBudget(10);
    const release = await budget.reserve(1_000);
    expect(budget.inUse).to.equal(10);
    release();
  });

  it('WorkQueue refuses past its limit and runs same-key items one at a time', async () => {
    const order: string[] = [];
    let concurrentSameKey = 0;
    let maxSameKey = 0;
    const queue = new WorkQueue<{ key: string; id: number }>({
      concurrency: 4,
      limit: 3,
      keyOf: (item) => item.key,
      run: async (item) => {
        if (item.key === 'a') maxSameKey = Math.max(maxSameKey, ++concurrentSameKey);
        await new Promise((r) => setTimeout(r, 5));
        if (item.key === 'a') concurrentSameKey--;
        order.push(`${item.key}${item.id}`);
      },
      onError: () => undefined,
    });
    const pushed = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12].map((id) =>
      queue.push({ key: id % 2 === 0 ? 'a' : `b${id}`, id }),
    );
    expect(pushed.filter((p) => !p)).to.have.length.greaterThan(0);
    await queue.idle();
    expect(maxSameKey).to.equal(1);
    expect(order.filter((o) => o.startsWith('a'))).to.deep.equal(
      order.filter((o) => o.startsWith('a')).sort(),
    );
  });

  it('WorkQueue keeps going after a failing item and reports it', async () => {
    const errors: unknown[] = [];
    const done: number[] = [];
    const queue = new WorkQueue<number>({
      concurrency: 1,
      limit: 10,
      keyOf: String,
      run: async (n) => {
        if (n === 1) throw new Error('boom');
        done.push(n);
      },
      onError: (_n, error) => errors.push(error),
    });
    queue.push(1);
    queue.push(2);
    await queue.idle();
    expect(done).to.deep.equal([2]);
    expect(errors).to.have.length(1);
  });
});
