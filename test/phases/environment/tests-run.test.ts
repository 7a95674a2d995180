import { expect } from 'chai';
import { testsRun } from '../../../src/phases/environment/tests-run.ts';

describe('the number of tests a test command ran, from its summary', () => {
  const table: [string, string, number | undefined][] = [
    ['node --test', 'ℹ tests 3\nℹ suites 0\nℹ pass 3\nℹ fail 0\n', 3],
    ['node --test TAP', 'TAP version 13\n# tests 4\n# pass 4\n', 4],
    ['jest', 'Tests:       1 failed, 11 passed, 12 total\nTime: 1 s\n', 12],
    ['vitest', ' Test Files  2 passed (2)\n      Tests  1 failed | 5 passed (6)\n', 6],
    ['mocha', '\n  5 passing (20ms)\n  2 failing\n', 7],
    ['pytest', '======= 11 passed, 1 failed, 2 skipped in 0.52s =======\n', 12],
    ['unittest', 'Ran 9 tests in 0.003s\n\nOK\n', 9],
    ['surefire', '[INFO] Tests run: 12, Failures: 0, Errors: 0, Skipped: 0\n', 12],
    ['go test', 'ok  \texample.com/a\t0.01s\nok  \texample.com/b\t0.02s\n', 2],
    ['colours stripped', '\x1b[32m  3 passing\x1b[0m (4ms)\n', 3],
    ['no summary', 'Error: Cannot find module jest\n', undefined],
    ['mocha with none', '\n  0 passing (1ms)\n', 0],
    ['uvu', '  Total:     36\n  Passed:    35\n  Skipped:   0\n  Duration:  5.02ms\n', 36],
  ];
  for (const [name, output, expected] of table)
    it(`E5 ${name} → ${String(expected)}`, () => expect(testsRun(output)).to.equal(expected));
});
