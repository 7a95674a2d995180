/**
 * A small project written for the older-Node tests: its test script refuses
 * Node 17 and later before running anything, as an old loader does, and
 * prints TAP when it runs; its CI tests the Node majors of `matrix`, its
 * engines allow Node 8 and newer.
 */
export const LEGACY_TEST_SCRIPT = [
  "const major = Number(process.versions.node.split('.')[0]);",
  'if (major > 16) {',
  "  console.error('the loader cannot start on Node ' + major);",
  '  process.exit(1);',
  '}',
  "console.log('TAP version 13\\nok 1 - adds\\nok 2 - subtracts\\n# tests 2\\n# pass 2');",
  '',
].join('\n');

/** A GitHub Actions workflow that tests the Node majors of `matrix` (e.g. `[12, 14, 16]`). */
export function ciWorkflowTesting(matrix: string): string {
  return [
    'on: [push]',
    'jobs:',
    '  test:',
    '    runs-on: ubuntu-latest',
    '    strategy:',
    '      matrix:',
    `        node: ${matrix}`,
    '    steps:',
    '      - uses: actions/checkout@v4',
    '      - uses: actions/setup-node@v4',
    '        with:',
    '          node-version: ${{ matrix.node }}',
    '      - run: npm install',
    '      - run: npm test',
    '',
  ].join('\n');
}

/** The project's files. */
export function legacyNodeProject(matrix: string): Record<string, string> {
  return {
    'package.json': JSON.stringify({
      name: 'legacy-lib',
      version: '1.0.0',
      engines: { node: '>=8' },
      scripts: { test: 'node test.js' },
    }),
    'test.js': LEGACY_TEST_SCRIPT,
    '.github/workflows/ci.yml': ciWorkflowTesting(matrix),
  };
}
