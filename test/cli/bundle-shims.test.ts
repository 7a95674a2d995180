import { expect } from 'chai';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

type Channel = {
  assert(key: unknown): void;
  delete(key: unknown): boolean;
  get(key: unknown): unknown;
  has(key: unknown): boolean;
  set(key: unknown, value: unknown): void;
};

/** The bundle's `side-channel` behaves as the package does for what qs does with it. */
describe('scripts/bundle-shims: side-channel as qs uses it', () => {
  const shim = require('../../scripts/bundle-shims/side-channel.cjs') as () => Channel;
  const real = require('side-channel') as () => Channel;

  it('keeps object and primitive keys apart, answers has/get/delete alike, and names a missing key alike', () => {
    const object = { a: 1 };
    for (const make of [shim, real]) {
      const channel = make();
      expect(channel.has(object)).to.equal(false);
      channel.set(object, 'walked');
      channel.set('key', 2);
      expect([channel.get(object), channel.get('key'), channel.has({ a: 1 })]).to.deep.equal([
        'walked',
        2,
        false,
      ]);
      expect(() => channel.assert('missing')).to.throw(
        TypeError,
        "Side channel does not contain 'missing'",
      );
      expect(() => channel.assert({})).to.throw(TypeError, 'the given object key');
      expect(channel.delete('key')).to.equal(true);
      expect(channel.has('key')).to.equal(false);
    }
  });
});
