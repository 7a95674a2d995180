import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { tempRepo } from '../../phases/environment/support.ts';
import { runCli } from '../helpers.ts';

/**
 * `mr-agent setup` on a project with a dependency fetched from a host the
 * runner cannot resolve (SPEC E2): real npm, through the real setup path,
 * ends at once — one attempt, no network retries — with one line naming the
 * host and what to do. The host is under the reserved `.invalid` TLD (RFC
 * 6761), so it never resolves, with or without internet; the project's
 * `.npmrc` turns off npm's own fetch retries so that only mr-agent's count.
 */

interface SetupJson {
  status: string;
  commands: { stage: string; command: string; exit_code: number | null; attempts: number }[];
  exit_code: number;
  problem?: string;
}

const nodeBin = path.dirname(process.execPath);

const project = {
  'package.json': JSON.stringify({
    name: 'tarball-dep',
    version: '1.0.0',
    scripts: { test: 'node -e "console.log(1)"' },
    dependencies: { widget: 'https://tarballs.example.invalid/acme/widget-1.0.0.tgz' },
  }),
  '.npmrc': 'fetch-retries=0\n',
};

describe('mr-agent setup: a dependency host that does not resolve (SPEC E2)', function () {
  // mr-agent's network retries alone wait 35 s: a run that retries fails here
  this.timeout(30_000);
  let cache: string;
  let repo: ReturnType<typeof tempRepo> | undefined;
  beforeEach(() => {
    cache = mkdtempSync(path.join(tmpdir(), 'mr-agent-unresolved-'));
  });
  afterEach(() => {
    repo?.cleanup();
    rmSync(cache, { recursive: true, force: true });
  });

  const env = () => ({
    PATH: `${nodeBin}:${process.env.PATH ?? ''}`,
    HOME: process.env.HOME ?? tmpdir(),
    XDG_CACHE_HOME: cache,
    npm_config_cache: path.join(cache, 'npm'),
  });

  it('E2 setup ends after one attempt, and the one line names the host and what to do', async () => {
    repo = tempRepo(project);
    const run = await runCli(['setup', repo.dir, '--json'], { env: env() });
    const report = JSON.parse(run.stdout) as SetupJson;
    expect(run.code, run.stderr).to.equal(1);
    const install = report.commands.find((c) => c.command.startsWith('npm install'));
    expect(install, JSON.stringify(report.commands)).to.not.equal(undefined);
    expect(install!.attempts).to.equal(1);
    expect(report.problem).to.match(
      /^`npm install [^`]*` could not reach `tarballs\.example\.invalid`: the runner cannot resolve `tarballs\.example\.invalid`, which a dependency is fetched from \(not the package registry\); let the runner reach that host, or vendor or mirror that dependency \(node in .*\)$/,
    );
    // the human output: the same line, last, on stderr
    const human = await runCli(['setup', repo.dir], { env: env() });
    expect(human.code).to.equal(1);
    expect(human.stdout).to.match(/FAILED: exit 1 after [\d.]+ s \(fatal: unreachable-host\)/);
    expect(human.stderr.trim().split('\n').pop()).to.equal(`mr-agent: ${report.problem}`);
  });
});
