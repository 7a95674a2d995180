import { stripVTControlCharacters } from 'node:util';

/**
 * How many tests a test command ran, read from its output by the summary
 * lines of the common runners. Undefined when no summary is recognised (the
 * caller then goes by the exit code alone).
 */

type Reader = (text: string) => number | undefined;

const sum = (...values: (string | undefined)[]) =>
  values.reduce((total, v) => total + (v ? Number(v) : 0), 0);

/** The last match of `pattern` (summaries come at the end), or undefined. */
function last(text: string, pattern: RegExp): RegExpExecArray | undefined {
  let found: RegExpExecArray | undefined;
  for (const match of text.matchAll(new RegExp(pattern.source, `${pattern.flags}g`)))
    found = match as RegExpExecArray;
  return found;
}

const READERS: readonly Reader[] = [
  // node --test (spec and TAP reporters): `ℹ tests 12`, `# tests 12`
  (text) => {
    const m = last(text, /^(?:ℹ|#) tests (\d+)$/m);
    return m ? Number(m[1]) : undefined;
  },
  // Jest: `Tests:       1 failed, 11 passed, 12 total`
  (text) => {
    const m = last(text, /^Tests:.*?(\d+) total/m);
    return m ? Number(m[1]) : undefined;
  },
  // Vitest: `Tests  11 passed (12)` or `Tests  1 failed | 11 passed (12)`
  (text) => {
    const m = last(text, /^\s*Tests\s+.*\((\d+)\)\s*$/m);
    return m ? Number(m[1]) : undefined;
  },
  // Mocha: `11 passing`, `1 failing`, `2 pending`
  (text) => {
    const passing = last(text, /^\s*(\d+) passing\b/m);
    if (!passing) return undefined;
    return sum(passing[1], last(text, /^\s*(\d+) failing\b/m)?.[1]);
  },
  // pytest: `==== 11 passed, 1 failed, 2 skipped in 0.52s ====`
  (text) => {
    const m = last(text, /^=+ (.*\b(?:passed|failed|error|errors)\b.*) in [\d.]+s.*=+$/m);
    if (!m) return undefined;
    const count = (word: string) => new RegExp(`(\\d+) ${word}\\b`).exec(m[1]!)?.[1];
    return sum(count('passed'), count('failed'), count('errors?'));
  },
  // unittest: `Ran 12 tests in 0.003s`
  (text) => {
    const m = last(text, /^Ran (\d+) tests? in /m);
    return m ? Number(m[1]) : undefined;
  },
  // Maven Surefire / Gradle's test logging: `Tests run: 12, Failures: 0, Errors: 0, Skipped: 0`
  (text) => {
    const m = last(text, /Tests run: (\d+), Failures: (\d+), Errors: (\d+)/);
    return m ? Number(m[1]) : undefined;
  },
  // AVA and tap: `12 tests passed`, `# pass 12`
  (text) => {
    const m = last(text, /^\s*(\d+) tests? passed\b/m) ?? last(text, /^# pass\s+(\d+)$/m);
    return m ? Number(m[1]) : undefined;
  },
  // uvu: `  Total:     36` over `  Passed:    36`
  (text) => {
    const m = last(text, /^\s*Total:\s+(\d+)\n\s*Passed:\s+\d+$/m);
    return m ? Number(m[1]) : undefined;
  },
  // go test: one `ok` line per package with tests, `--- PASS`/`--- FAIL` with -v
  (text) => {
    const verbose = text.match(/^\s*--- (?:PASS|FAIL): /gm)?.length ?? 0;
    if (verbose > 0) return verbose;
    const packages = text.match(/^(?:ok|FAIL)\s+\S+\s+[\d.]+s/gm)?.length ?? 0;
    return packages > 0 ? packages : undefined;
  },
];

export function testsRun(output: string): number | undefined {
  const text = stripVTControlCharacters(output);
  for (const read of READERS) {
    const count = read(text);
    if (count !== undefined) return count;
  }
  return undefined;
}
