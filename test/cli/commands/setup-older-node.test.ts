import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { tempRepo } from '../../phases/environment/support.ts';
import { runCli } from '../helpers.ts';
import { legacyNodeProject } from '../../support/legacy-node-project.ts';

/**
 * `mr-agent setup` on a project whose test tooling stops at an older Node
 * than the one on PATH (SPEC E3, E5): the tests that ran none are run again
 * on the newest Node the project's CI tests, installed from the npm registry
 * into the tool cache; when that cannot be had, the one line says which Node
 * the project needs. The project is written for this test: its test script
 * refuses Node 17 and later before running anything, as an old loader does.
 */

interface SetupJson {
  status: string;
  commands: { stage: string; command: string; exit_code: number | null }[];
  tests: {
    command: string;
    exit_code: number | null;
    tests_run: number | null;
    node_version?: number;
  } | null;
  exit_code: number;
  problem?: string;
}

const nodeBin = path.dirname(process.execPath);

function hostEnv(cache: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: `${nodeBin}:${process.env.PATH ?? ''}`,
    HOME: process.env.HOME ?? tmpdir(),
    XDG_CACHE_HOME: cache,
    npm_config_cache: path.join(cache, 'npm'),
    ...Object.fromEntries(
      ['NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE', 'HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY']
        .filter((name) => process.env[name] !== undefined)
        .map((name) => [name, process.env[name]!]),
    ),
    ...extra,
  };
}

const legacyProject = legacyNodeProject;

describe('mr-agent setup: tests that need an older Node (SPEC E3, E5)', function () {
  this.timeout(180_000);
  let cache: string;
  let repo: ReturnType<typeof tempRepo> | undefined;
  beforeEach(() => {
    cache = mkdtempSync(path.join(tmpdir(), 'mr-agent-older-node-'));
  });
  afterEach(() => {
    repo?.cleanup();
    rmSync(cache, { recursive: true, force: true });
  });

  it('E3 E5 tests that ran none on Node 24 run on the newest Node CI tests (16), fetched from the npm registry', async () => {
    repo = tempRepo(legacyProject('[12, 14, 16]'));
    const run = await runCli(['setup', repo.dir, '--json'], { env: hostEnv(cache) });
    const report = JSON.parse(run.stdout) as SetupJson;
    expect(report.problem, run.stderr).to.equal(undefined);
    expect(run.code).to.equal(0);
    expect(report.tests).to.deep.equal({
      command: 'npm test',
      exit_code: 0,
      tests_run: 2,
      node_version: 16,
    });
    const install = report.commands.find((c) => c.stage === 'prepare');
    expect(install?.command).to.match(
      /^npm install --prefix '?[^ ]*\/mr-agent\/node\/16'? .* node@16$/,
    );
    expect(install?.exit_code).to.equal(0);
    expect(existsSync(path.join(cache, 'mr-agent', 'node', '16', 'bin', 'node'))).to.equal(true);
    // the human output says which Node ran them, and nothing was left in the checkout
    const human = await runCli(['setup', repo.dir], { env: hostEnv(cache) });
    expect(human.code).to.equal(0);
    expect(human.stdout).to.match(/ 2 tests ran on Node 16 \(exit 0\)$/m);
    expect(existsSync(path.join(repo.dir, 'node_modules', 'node'))).to.equal(false);
  });

  it('E3 when the older Node cannot be fetched, the one line names the Node the project needs', async () => {
    repo = tempRepo(legacyProject('[12, 14]'));
    const run = await runCli(['setup', repo.dir, '--json'], {
      env: hostEnv(cache, {
        npm_config_registry: 'http://127.0.0.1:9/',
        npm_config_fetch_retries: '0',
      }),
    });
    const report = JSON.parse(run.stdout) as SetupJson;
    expect(run.code).to.equal(1);
    expect(report.problem).to.match(
      /^the test command `npm test` exited 1 without running a test \(the root of .*\) on Node \d+; the project needs Node 14 \(\.github\/workflows\/ci\.yml:\d+ CI tests up to Node 14\), and installing node@14 from the npm registry failed$/,
    );
  });

  it('E5 a project whose pins allow the Node on PATH gets no second try', async () => {
    repo = tempRepo({ ...legacyProject('[20, 22]'), '.nvmrc': 'lts/*\n' });
    const run = await runCli(['setup', repo.dir, '--json'], { env: hostEnv(cache) });
    const report = JSON.parse(run.stdout) as SetupJson;
    expect(run.code).to.equal(1);
    expect(report.commands.some((c) => c.stage === 'prepare')).to.equal(false);
    expect(report.problem).to.match(/exited 1 without running a test \(the root of [^)]*\)$/);
  });
});
