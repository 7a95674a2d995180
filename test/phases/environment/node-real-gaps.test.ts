import { expect } from 'chai';
import { detectEnvironment } from '../../../src/phases/environment/detect-environment.ts';
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
});
