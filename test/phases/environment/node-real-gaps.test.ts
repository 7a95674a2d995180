import { expect } from 'chai';
import type { VersionPin } from '../../../src/core/environment.ts';
import { detectEnvironment } from '../../../src/phases/environment/detect-environment.ts';
import { olderNodeFor } from '../../../src/phases/environment/kinds/node/older-node.ts';
import { tempRepo } from './support.ts';

/**
 * Node setup decisions that real projects showed wrong, on layouts written
 * for these tests (modelled on the shapes, not copied from any project).
 */

const pnpmLock = (version: string) =>
  `lockfileVersion: '${version}'\n\nimporters:\n\n  .:\n    devDependencies:\n      vitest:\n        specifier: ^2.0.0\n        version: 2.1.9\n`;

describe('Node setup decisions from real projects (SPEC C2, E1)', () => {
  let repo: ReturnType<typeof tempRepo> | undefined;
  afterEach(() => repo?.cleanup());

  for (const [lockfile, major] of [
    ['9.0', '9'],
    ['6.0', '8'],
    ['5.4', '7'],
  ] as const) {
    it(`E1 a pnpm lockfile ${lockfile} with no packageManager pin prepares pnpm ${major}, not corepack's newest`, async () => {
      repo = tempRepo({
        'package.json': JSON.stringify({
          name: 'lib',
          scripts: { test: 'vitest run' },
          devDependencies: { vitest: '^2.0.0' },
        }),
        'pnpm-lock.yaml': pnpmLock(lockfile),
      });
      const d = await detectEnvironment(repo.dir);
      expect(d.setup_commands).to.deep.equal([
        'corepack enable pnpm',
        `corepack prepare pnpm@${major} --activate`,
        'pnpm install --frozen-lockfile',
      ]);
      expect(d.reasons.join('\n')).to.include(`pnpm ${major}: no packageManager pin`);
    });
  }

  it('E1 a packageManager pin decides pnpm: nothing is prepared from the lockfile', async () => {
    repo = tempRepo({
      'package.json': JSON.stringify({
        name: 'lib',
        packageManager: 'pnpm@10.4.1',
        scripts: { test: 'vitest run' },
      }),
      'pnpm-lock.yaml': pnpmLock('9.0'),
    });
    const d = await detectEnvironment(repo.dir);
    expect(d.setup_commands).to.deep.equal([
      'corepack enable pnpm',
      'pnpm install --frozen-lockfile',
    ]);
  });

  const workflow = (...steps: string[]) =>
    [
      'name: ci',
      'on: [push]',
      'jobs:',
      '  ci:',
      '    runs-on: ubuntu-latest',
      '    steps:',
      '      - uses: actions/checkout@v4',
      '      - uses: actions/setup-node@v4',
      '        with:',
      '          node-version: 22',
      '      - run: pnpm install',
      ...steps.map((s) => `      - run: ${s}`),
      '',
    ].join('\n');

  const typedLib = (ci: string) => ({
    'package.json': JSON.stringify({
      name: 'lib',
      packageManager: 'pnpm@9.15.9',
      scripts: { test: 'pnpm test:types && vitest run', 'test:types': 'tsc --noEmit' },
      devDependencies: { vitest: '^2.0.0', typescript: '^5.6.0' },
    }),
    'pnpm-lock.yaml': pnpmLock('9.0'),
    '.github/workflows/ci.yml': ci,
  });

  it('C2 a type-check script in CI ranks below the test runner CI runs after it', async () => {
    repo = tempRepo(typedLib(workflow('pnpm lint', 'pnpm test:types', 'pnpm vitest --coverage')));
    const d = await detectEnvironment(repo.dir);
    expect(d.test_command?.command).to.equal('pnpm vitest --coverage');
  });

  it('C2 a type check ranks below a test script too (`npm run test:unit`), whatever the order', async () => {
    repo = tempRepo(typedLib(workflow('pnpm run test:types', 'pnpm run test:unit')));
    const d = await detectEnvironment(repo.dir);
    expect(d.test_command?.command).to.equal('pnpm run test:unit');
  });

  it('C2 `npx jest` and `pnpm exec mocha` in CI are test commands', async () => {
    repo = tempRepo(typedLib(workflow('npx --yes jest --ci')));
    expect((await detectEnvironment(repo.dir)).test_command?.command).to.equal(
      'npx --yes jest --ci',
    );
    repo.cleanup();
    repo = tempRepo(typedLib(workflow('pnpm exec mocha')));
    expect((await detectEnvironment(repo.dir)).test_command?.command).to.equal('pnpm exec mocha');
  });

  it('C2 a type check that is all CI runs is still the command taken (nothing better is known)', async () => {
    repo = tempRepo(typedLib(workflow('pnpm test:types')));
    const d = await detectEnvironment(repo.dir);
    expect(d.test_command?.command).to.equal('pnpm test:types');
  });

  it("E3 CI's Node pin carries the newest major its matrix tests", async () => {
    repo = tempRepo({
      'package.json': JSON.stringify({
        name: 'lib',
        engines: { node: '>=6' },
        scripts: { test: 'node test.js' },
      }),
      '.github/workflows/ci.yml': [
        'on: [push]',
        'jobs:',
        '  test:',
        '    runs-on: ubuntu-latest',
        '    strategy:',
        '      matrix:',
        '        nodejs: [10, 12, 14]',
        '    steps:',
        '      - uses: actions/setup-node@v4',
        '        with:',
        '          node-version: ${{ matrix.nodejs }}',
        '      - run: npm install',
        '      - run: npm test',
        '',
      ].join('\n'),
    });
    const d = await detectEnvironment(repo.dir);
    const ci = d.versions.find((v) => v.source.endsWith(' CI'));
    expect(ci).to.include({ minimum: '10', maximum: '14' });
    expect(olderNodeFor(d.versions, 24)).to.deep.equal({
      major: 14,
      because: `${ci!.source} tests up to Node 14`,
    });
  });
});

describe('the older Node a project vouches for (SPEC E3)', () => {
  const pin = (spec: string, source: string, maximum?: string): VersionPin => ({
    language: 'node',
    spec,
    source,
    ...(maximum ? { maximum } : {}),
  });
  const table: [string, VersionPin[], number | undefined][] = [
    ['a CI matrix that stops at 16', [pin('8', 'ci.yml:3 CI', '16')], 16],
    ['an exact .nvmrc', [pin('18.20.4', '.nvmrc')], 18],
    ['volta', [pin('20.11.0', 'package.json volta.node')], 20],
    ['an engines upper bound', [pin('>=12 <19', 'package.json engines.node')], 18],
    [
      'engines with no upper bound says nothing',
      [pin('>=6', 'package.json engines.node')],
      undefined,
    ],
    ['the newest of several pins', [pin('14', '.nvmrc'), pin('8', 'ci.yml:3 CI', '18')], 18],
    [
      'a pin that allows the current Node',
      [pin('8', 'ci.yml:3 CI', '16'), pin('24', '.nvmrc')],
      undefined,
    ],
    [
      'a moving version (lts/*)',
      [pin('lts/*', '.nvmrc'), pin('8', 'ci.yml:3 CI', '16')],
      undefined,
    ],
    ['no pins', [], undefined],
  ];
  for (const [name, pins, major] of table)
    it(`E3 ${name} → ${String(major)}`, () =>
      expect(olderNodeFor(pins, 24)?.major).to.equal(major));
});
