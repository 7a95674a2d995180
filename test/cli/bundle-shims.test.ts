import { expect } from 'chai';
import { createRequire } from 'node:module';
import type * as YamlLibrary from 'yaml';

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

type Yaml = typeof YamlLibrary;

/** The bundle takes the YAML library's ES module build; it must read what users write as Node's build does. */
describe("scripts/bundle-cli: the YAML library's ES build reads .mr-agent.yml as its Node build does", () => {
  const texts = [
    'planning:\n  max_subtasks: 5\nnotes:\n  language: ja\n',
    'base: &b { a: 1 }\nother:\n  <<: *b\n  c: [x, "y", 3.5, true, null]\n',
    'planning:\n  max_subtasks: [\n',
    '__proto__: { polluted: 1 }\nkey: "multi\n  line"\n',
    'a: &a [1, 2]\nb: [*a, *a, *a]\n',
    'tag: !!binary aGVsbG8=\ndate: 2026-11-27\n',
  ];

  it('C1 gives the same data, errors (with line and column) and warnings for the same text', async () => {
    const node = require('yaml') as Yaml;
    const root = require.resolve('yaml/package.json').replace(/package\.json$/, '');
    const esm = (await import(`${root}browser/index.js`)) as Yaml;
    const read = (yaml: Yaml, text: string) => {
      const doc = yaml.parseDocument(text, { prettyErrors: true });
      const errors = doc.errors.map(
        (e) => `${e.linePos?.[0]?.line}:${e.linePos?.[0]?.col} ${e.message}`,
      );
      const value: unknown = errors.length ? undefined : doc.toJS({ maxAliasCount: 100 });
      // a binary scalar is a Buffer from one build and a Uint8Array from the other: compare bytes
      const bytes = function (this: Record<string, unknown>, key: string, v: unknown) {
        const raw = this[key];
        return raw instanceof Uint8Array ? Array.from(raw) : v;
      };
      return (
        JSON.stringify(value, bytes) +
        `\n${errors.join('\n')}\n${doc.warnings.map((w) => w.message).join('\n')}`
      );
    };
    for (const text of texts) expect(read(esm, text), text).to.equal(read(node, text));
    expect(read(esm, texts[2]!)).to.match(/3:1 /);
  });
});
