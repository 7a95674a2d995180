import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { classifyFailure, RETRY_WAITS_MS } from '../../../src/phases/environment/classify.ts';
import type { FailureClass, FailureKind } from '../../../src/phases/environment/signatures.ts';

const dir = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../fixtures/install-errors',
);

interface Case {
  file: string;
  exitCode: number;
  expected: FailureClass;
  kind: FailureKind;
  /** Where the text comes from: `run` = captured here from the real tool, else the research reference. */
  source: string;
}

const run = 'captured from a real run on the build machine';
const cases: Case[] = [
  // npm (real runs)
  { file: 'npm-e404', exitCode: 1, expected: 'fixable', kind: 'unknown-package', source: run },
  { file: 'npm-etarget', exitCode: 1, expected: 'fixable', kind: 'version-conflict', source: run },
  { file: 'npm-eresolve', exitCode: 1, expected: 'fixable', kind: 'version-conflict', source: run },
  {
    file: 'npm-ci-nolock',
    exitCode: 1,
    expected: 'fixable',
    kind: 'lockfile-mismatch',
    source: run,
  },
  {
    file: 'npm-ci-outofsync',
    exitCode: 1,
    expected: 'fixable',
    kind: 'lockfile-mismatch',
    source: run,
  },
  { file: 'npm-ejsonparse', exitCode: 1, expected: 'fixable', kind: 'config-syntax', source: run },
  {
    file: 'npm-local-missing',
    exitCode: 254,
    expected: 'fixable',
    kind: 'missing-file',
    source: run,
  },
  {
    file: 'npm-offline-notcached',
    exitCode: 1,
    expected: 'fixable',
    kind: 'unknown-package',
    source: run,
  },
  { file: 'npm-bad-registry', exitCode: 1, expected: 'retryable', kind: 'network', source: run },
  { file: 'npm-bad-host', exitCode: 1, expected: 'retryable', kind: 'network', source: run },
  { file: 'npm-engine-strict', exitCode: 1, expected: 'fixable', kind: 'toolchain', source: run },
  // npm (research §3: npm/cli#8015, npm/npm#11832, npm/cli#7308)
  {
    file: 'npm-econnreset',
    exitCode: 1,
    expected: 'retryable',
    kind: 'network',
    source: 'npm/cli#8015',
  },
  {
    file: 'npm-eai-again',
    exitCode: 1,
    expected: 'retryable',
    kind: 'network',
    source: 'npm/npm#11832',
  },
  {
    file: 'npm-etimedout-retry',
    exitCode: 1,
    expected: 'retryable',
    kind: 'network',
    source: 'npm/npm#12100',
  },
  {
    file: 'npm-eexist-cache',
    exitCode: 1,
    expected: 'retryable',
    kind: 'lock',
    source: 'npm/cli#7308',
  },
  {
    file: 'npm-e503',
    exitCode: 1,
    expected: 'retryable',
    kind: 'server-error',
    source: 'npm registry incident texts',
  },
  {
    file: 'npm-enospc',
    exitCode: 1,
    expected: 'fatal',
    kind: 'disk-full',
    source: 'npm ENOSPC report',
  },
  {
    file: 'node-heap-oom',
    exitCode: 134,
    expected: 'fatal',
    kind: 'out-of-memory',
    source: 'Node.js heap limit',
  },
  // pnpm and yarn
  {
    file: 'pnpm-outdated',
    exitCode: 1,
    expected: 'fixable',
    kind: 'lockfile-mismatch',
    source: run,
  },
  { file: 'pnpm-404', exitCode: 1, expected: 'fixable', kind: 'unknown-package', source: run },
  {
    file: 'pnpm-notarget',
    exitCode: 1,
    expected: 'fixable',
    kind: 'version-conflict',
    source: run,
  },
  {
    file: 'pnpm-etimedout',
    exitCode: 1,
    expected: 'retryable',
    kind: 'network',
    source: 'pnpm/pnpm#8175',
  },
  {
    file: 'pnpm-frozen-outdated',
    exitCode: 1,
    expected: 'fixable',
    kind: 'lockfile-mismatch',
    source: 'pnpm/pnpm#6307',
  },
  { file: 'yarn-frozen', exitCode: 1, expected: 'fixable', kind: 'lockfile-mismatch', source: run },
  { file: 'yarn-404', exitCode: 1, expected: 'fixable', kind: 'unknown-package', source: run },
  {
    file: 'yarn-berry-immutable',
    exitCode: 1,
    expected: 'fixable',
    kind: 'lockfile-mismatch',
    source: 'suitenumerique/docs#2604',
  },
  {
    file: 'yarn-network',
    exitCode: 1,
    expected: 'retryable',
    kind: 'network',
    source: 'yarnpkg/yarn#5259',
  },
  { file: 'corepack-signature', exitCode: 1, expected: 'fixable', kind: 'toolchain', source: run },
  // pip and Python
  { file: 'pip-noindex', exitCode: 1, expected: 'fixable', kind: 'unknown-package', source: run },
  { file: 'pip-invalid-req', exitCode: 1, expected: 'fixable', kind: 'config-syntax', source: run },
  { file: 'pip-bad-toml', exitCode: 2, expected: 'fixable', kind: 'config-syntax', source: run },
  {
    file: 'pip-missing-req-file',
    exitCode: 1,
    expected: 'fixable',
    kind: 'missing-file',
    source: run,
  },
  { file: 'pip-requires-python', exitCode: 1, expected: 'fixable', kind: 'unknown', source: run },
  { file: 'py-import', exitCode: 1, expected: 'fixable', kind: 'unknown-package', source: run },
  {
    file: 'pip-read-timeout',
    exitCode: 1,
    expected: 'retryable',
    kind: 'network',
    source: 'pypa/pip#7424',
  },
  {
    file: 'pip-new-connection',
    exitCode: 1,
    expected: 'retryable',
    kind: 'network',
    source: 'pip retry warning, real run',
  },
  {
    file: 'pip-resolution-impossible',
    exitCode: 1,
    expected: 'fixable',
    kind: 'version-conflict',
    source: 'pypa/pip#8377',
  },
  {
    file: 'pip-externally-managed',
    exitCode: 1,
    expected: 'fixable',
    kind: 'toolchain',
    source: 'PEP 668 error',
  },
  {
    file: 'pip-http-503',
    exitCode: 1,
    expected: 'retryable',
    kind: 'server-error',
    source: 'PyPI 503 texts',
  },
  {
    file: 'pip-nospace',
    exitCode: 1,
    expected: 'fatal',
    kind: 'disk-full',
    source: 'pip OSError 28',
  },
  {
    file: 'pip-requires-different-python',
    exitCode: 1,
    expected: 'fixable',
    kind: 'toolchain',
    source: 'pip Requires-Python',
  },
  // Maven and Gradle
  { file: 'mvn-offline', exitCode: 1, expected: 'retryable', kind: 'network', source: run },
  { file: 'mvn-badpom', exitCode: 1, expected: 'fixable', kind: 'config-syntax', source: run },
  {
    file: 'maven-503',
    exitCode: 1,
    expected: 'retryable',
    kind: 'server-error',
    source: 'HiromuHota/pentaho-kettle#270',
  },
  {
    file: 'maven-cached',
    exitCode: 1,
    expected: 'fixable',
    kind: 'cached-failure',
    source: 'mkolisnyk/cucumber-reports#89',
  },
  {
    file: 'maven-oom',
    exitCode: 1,
    expected: 'fatal',
    kind: 'out-of-memory',
    source: 'Java heap space',
  },
  {
    file: 'maven-missing-artifact',
    exitCode: 1,
    expected: 'fixable',
    kind: 'unknown-package',
    source: 'Maven resolver text',
  },
  {
    file: 'gradle-lock',
    exitCode: 1,
    expected: 'retryable',
    kind: 'lock',
    source: 'gradle/gradle#8750',
  },
  // Go
  {
    file: 'go-io-timeout',
    exitCode: 1,
    expected: 'retryable',
    kind: 'network',
    source: 'sylabs/singularity#1463',
  },
  {
    file: 'go-tls-timeout',
    exitCode: 1,
    expected: 'retryable',
    kind: 'network',
    source: 'sylabs/singularity#1463',
  },
  {
    file: 'go-checksum',
    exitCode: 1,
    expected: 'fatal',
    kind: 'security',
    source: 'goproxyio/goproxy#232',
  },
  {
    file: 'go-toolchain',
    exitCode: 1,
    expected: 'fixable',
    kind: 'toolchain',
    source: 'go.dev/doc/toolchain',
  },
  {
    file: 'go-unknown-revision',
    exitCode: 1,
    expected: 'fixable',
    kind: 'unknown-package',
    source: 'cmd/go text',
  },
  {
    file: 'go-notfound',
    exitCode: 127,
    expected: 'fixable',
    kind: 'command-not-found',
    source: run,
  },
  // conda
  {
    file: 'conda-http-000',
    exitCode: 1,
    expected: 'retryable',
    kind: 'network',
    source: 'conda/conda#7186',
  },
  {
    file: 'conda-not-found',
    exitCode: 1,
    expected: 'fixable',
    kind: 'unknown-package',
    source: 'conda PackagesNotFoundError',
  },
  {
    file: 'conda-unsatisfiable',
    exitCode: 1,
    expected: 'fixable',
    kind: 'version-conflict',
    source: 'conda solver text',
  },
  {
    file: 'conda-parse',
    exitCode: 1,
    expected: 'fixable',
    kind: 'config-syntax',
    source: 'conda/conda#3417',
  },
  // system
  {
    file: 'apt-lock',
    exitCode: 100,
    expected: 'retryable',
    kind: 'lock',
    source: 'danvk/mapsnap#443',
  },
  { file: 'git-lock', exitCode: 128, expected: 'retryable', kind: 'lock', source: run },
  {
    file: 'sh-notfound',
    exitCode: 127,
    expected: 'fixable',
    kind: 'command-not-found',
    source: run,
  },
  { file: 'killed-137', exitCode: 137, expected: 'fatal', kind: 'killed', source: 'OOM killer' },
];

describe('environment failure classification (SPEC E2, seed 000 §8.1)', () => {
  it('E2 the table holds at least 40 real error texts', () => {
    expect(cases.length).to.be.at.least(40);
  });

  for (const c of cases) {
    it(`E2 ${c.file} → ${c.expected} (${c.kind}) [${c.source}]`, () => {
      const output = readFileSync(path.join(dir, `${c.file}.txt`), 'utf8');
      const result = classifyFailure({ exitCode: c.exitCode, output });
      expect({ class: result.class, kind: result.kind }).to.deep.equal({
        class: c.expected,
        kind: c.kind,
      });
      expect(result.evidence, 'evidence is a line of the output').to.not.equal('');
      if (result.tool !== 'exit-code') expect(output).to.include(result.evidence.slice(0, 40));
    });
  }

  it('E2 a command stopped at its timeout is fixable, whatever it printed', () => {
    const result = classifyFailure({
      exitCode: undefined,
      signal: 'SIGTERM',
      timedOut: true,
      output: 'npm http fetch GET 200',
    });
    expect(result).to.include({ class: 'fixable', kind: 'timeout' });
  });

  it('E2 SIGKILL from outside is fatal even when the output shows a network retry', () => {
    const result = classifyFailure({
      exitCode: undefined,
      signal: 'SIGKILL',
      output: 'npm http fetch GET attempt 1 failed with ECONNRESET',
    });
    expect(result).to.include({ class: 'fatal', kind: 'killed' });
  });

  it('E2 an unknown failure is fixable by exit code, its last line as evidence', () => {
    const result = classifyFailure({ exitCode: 3, output: 'building…\nsomething odd happened' });
    expect(result).to.deep.include({
      class: 'fixable',
      kind: 'unknown',
      tool: 'exit-code',
      evidence: 'something odd happened',
    });
  });

  it('E2 a command that could not start is classified from the spawn error', () => {
    const result = classifyFailure({
      exitCode: undefined,
      output: '',
      spawnError: 'spawn /bin/sh ENOENT',
    });
    expect(result).to.include({ class: 'fixable', kind: 'missing-file' });
  });

  it('seed 000 §8.2.1 waits: network 5/10/20 s, server error 10 s ×3, lock 3 s ×5', () => {
    expect(RETRY_WAITS_MS).to.deep.equal({
      network: [5000, 10000, 20000],
      'server-error': [10000, 10000, 10000],
      lock: [3000, 3000, 3000, 3000, 3000],
    });
  });
});
