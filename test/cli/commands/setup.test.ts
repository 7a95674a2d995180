import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { NODE_PROJECTS } from '../../fixtures/setup/node-projects.ts';
import { tempRepo } from '../../phases/environment/support.ts';
import { runCli } from '../helpers.ts';

/**
 * `mr-agent setup` on Node projects written for it, against the real npm
 * registry (SPEC E1–E5): the job's detection, commands, retries and exact
 * checks, then the project's tests. Corepack fetches pnpm and Yarn; this
 * machine's registry serves no signatures (COREPACK_INTEGRITY_KEYS=0) and
 * Yarn Berry reaches packages only through the npm registry: both settings
 * reach the commands through the sandbox allow-list, as a team's mirror
 * settings would.
 */

interface SetupJson {
  status: string;
  environment: string;
  package_manager: string;
  commands: { command: string; exit_code: number | null; duration_ms: number }[];
  verification: { passed: boolean; expected: string[]; got: (string | null)[] };
  tests: { command: string; exit_code: number | null; tests_run: number | null } | null;
  exit_code: number;
  problem?: string;
}

const nodeBin = path.dirname(process.execPath);
const cache = mkdtempSync(path.join(tmpdir(), 'mr-agent-setup-cache-'));
const realCorepack = (process.env.PATH ?? '')
  .split(':')
  .map((d) => path.join(d, 'corepack'))
  .find((f) => existsSync(f));

function hostEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: `${nodeBin}:${process.env.PATH ?? ''}`,
    HOME: process.env.HOME ?? tmpdir(),
    XDG_CACHE_HOME: cache,
    npm_config_cache: path.join(cache, 'npm'),
    COREPACK_HOME: path.join(cache, 'corepack'),
    COREPACK_INTEGRITY_KEYS: '0',
    COREPACK_ENABLE_DOWNLOAD_PROMPT: '0',
    COREPACK_NPM_REGISTRY: 'https://registry.npmjs.org',
    YARN_NPM_REGISTRY_SERVER: 'https://registry.npmjs.org',
    // the machine's own CA files (a TLS-inspecting proxy), as a team behind one sets them
    ...Object.fromEntries(
      [
        'NODE_EXTRA_CA_CERTS',
        'SSL_CERT_FILE',
        'SSL_CERT_DIR',
        'HTTPS_PROXY',
        'HTTP_PROXY',
        'NO_PROXY',
      ]
        .filter((name) => process.env[name] !== undefined)
        .map((name) => [name, process.env[name]!]),
    ),
    ...extra,
  };
}

after(() => rmSync(cache, { recursive: true, force: true }));

describe('mr-agent setup on Node projects (SPEC E1–E5, real registry)', function () {
  this.timeout(120_000);
  const corepackDir = realCorepack ? path.dirname(realCorepack) : undefined;
  const before = corepackDir ? new Set(readdirSync(corepackDir)) : new Set<string>();

  for (const project of NODE_PROJECTS) {
    it(`E1 E3 E5 ${project.name}: ready, checks matched exactly, the tests ran`, async () => {
      const repo = tempRepo(project.files);
      try {
        const run = await runCli(['setup', repo.dir, '--json'], { env: hostEnv() });
        const report = JSON.parse(run.stdout) as SetupJson;
        expect(report.problem, run.stderr).to.equal(undefined);
        expect(run.code).to.equal(0);
        expect(report).to.include({ status: 'ready', environment: 'node', exit_code: 0 });
        expect(report.package_manager).to.equal(project.expected.packageManager);
        expect(report.commands.length).to.be.greaterThan(1);
        for (const c of report.commands) {
          expect(c.exit_code).to.equal(0);
          expect(c.duration_ms).to.be.a('number');
        }
        expect(report.verification.passed).to.equal(true);
        expect(report.verification.got).to.deep.equal(report.verification.expected);
        expect(report.tests).to.deep.include({
          exit_code: 0,
          tests_run: project.expected.testsRun,
        });
      } finally {
        repo.cleanup();
      }
    });
  }

  it('E1 corepack writes its shims into the tool cache, never beside the installed corepack', () => {
    if (!corepackDir) return;
    expect(readdirSync(corepackDir).filter((f) => !before.has(f))).to.deep.equal([]);
    expect(readdirSync(path.join(cache, 'mr-agent', 'bin'))).to.include.members(['corepack']);
  });

  it('E1 the human output prints each command with its outcome, then the tests', async () => {
    const repo = tempRepo(NODE_PROJECTS[0]!.files);
    try {
      const run = await runCli(['setup', repo.dir], { env: hostEnv() });
      expect(run.code).to.equal(0);
      expect(run.stdout).to.match(
        /^setup \$ npm install --no-audit --no-fund --no-package-lock\n {2}ok: exit 0 in /m,
      );
      expect(run.stdout).to.match(/^check \$ node -e .*\n {2}ok: printed "true"/m);
      expect(run.stdout).to.match(/^tests \$ npm test\n {2}ok: exit 0, 2 tests ran$/m);
      expect(run.stdout).to.match(
        /^mr-agent: ready — node \(npm\), 1 setup command, 2 checks passed, 2 tests ran \(exit 0\)$/m,
      );
    } finally {
      repo.cleanup();
    }
  });

  it('M1 package-manager settings reach the commands; a secret-looking one and URL credentials never do', async () => {
    const files = {
      ...NODE_PROJECTS[0]!.files,
      'package.json': JSON.stringify({
        name: 'probe',
        private: true,
        scripts: {
          test: `node -e "require('fs').writeFileSync('seen.json', JSON.stringify(Object.keys(process.env)))" && node --test`,
        },
        dependencies: { 'is-number': '^7.0.0' },
      }),
    };
    const repo = tempRepo(files);
    try {
      const run = await runCli(['setup', repo.dir, '--json'], {
        env: hostEnv({
          npm_config_fetch_retries: '3',
          'npm_config_//registry.example/:_authToken': 'npm-secret-value',
          PIP_INDEX_URL: 'https://pypi.mirror.example/simple',
          PIP_EXTRA_INDEX_URL: 'https://user:pw@private.example/simple',
          NO_PROXY: 'localhost',
          GITLAB_TOKEN: 'glpat-secret-value',
        }),
      });
      expect(run.code, run.stdout).to.equal(0);
      const seen = JSON.parse(readFileSync(path.join(repo.dir, 'seen.json'), 'utf8')) as string[];
      expect(seen).to.include.members([
        'npm_config_fetch_retries',
        'PIP_INDEX_URL',
        'NO_PROXY',
        'COREPACK_INTEGRITY_KEYS',
        'YARN_NPM_REGISTRY_SERVER',
      ]);
      for (const name of [
        'npm_config_//registry.example/:_authToken',
        'PIP_EXTRA_INDEX_URL',
        'GITLAB_TOKEN',
      ])
        expect(seen).not.to.include(name);
      expect(run.stdout).not.to.include('secret-value');
    } finally {
      repo.cleanup();
    }
  });
});

describe('mr-agent setup: one clear line, never a stack trace', function () {
  this.timeout(30_000);

  it('a folder with no project exits 2 and says where', async () => {
    const repo = tempRepo({ 'README.md': '# notes\n' });
    try {
      const run = await runCli(['setup', repo.dir], { env: hostEnv() });
      expect(run.code).to.equal(2);
      expect(run.stderr).to.equal(
        `mr-agent: no project to set up in ${repo.dir}: no package.json, pyproject.toml, requirements.txt, environment.yml, pom.xml, build.gradle or go.mod\n`,
      );
      expect(run.stdout).to.equal('');
    } finally {
      repo.cleanup();
    }
  });

  it('a missing folder is a usage error (exit 2)', async () => {
    const run = await runCli(['setup', path.join(tmpdir(), 'no-such-checkout-here')], {
      env: hostEnv(),
    });
    expect(run.code).to.equal(2);
    expect(run.stderr).to.match(/^mr-agent: .*no-such-checkout-here is not a folder\n/);
    expect(run.stderr).not.to.match(/\n\s+at /);
  });

  it('an unreadable package.json exits 1 naming the file, before any command runs', async () => {
    const repo = tempRepo({ 'package.json': '{"name": "half",\n' });
    try {
      const run = await runCli(['setup', repo.dir, '--json'], { env: hostEnv() });
      expect(run.code).to.equal(1);
      const report = JSON.parse(run.stdout) as SetupJson;
      expect(report.commands).to.deep.equal([]);
      expect(report.problem).to.match(
        new RegExp(
          `^${path.join(repo.dir, 'package.json').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not valid JSON: `,
        ),
      );
    } finally {
      repo.cleanup();
    }
  });

  it('a missing tool exits 1 with the tool, the command and the folder', async () => {
    const onlyNode = mkdtempSync(path.join(tmpdir(), 'mr-agent-only-node-'));
    symlinkSync(process.execPath, path.join(onlyNode, 'node'));
    const repo = tempRepo(NODE_PROJECTS[1]!.files);
    try {
      const run = await runCli(['setup', repo.dir], { env: { ...hostEnv(), PATH: onlyNode } });
      expect(run.code).to.equal(1);
      expect(run.stdout).to.include('setup $ corepack enable pnpm\n  FAILED: exit 127');
      expect(run.stderr.trim().split('\n')).to.deep.equal([
        `mr-agent: \`corepack\` is not installed or not on PATH: \`corepack enable pnpm\` needs it (node in ${repo.dir})`,
      ]);
    } finally {
      repo.cleanup();
      rmSync(onlyNode, { recursive: true, force: true });
    }
  });

  it('a test command that runs no test is a failed setup (exit 1)', async () => {
    const repo = tempRepo({
      'package.json': JSON.stringify({
        name: 'nothing',
        private: true,
        scripts: { test: 'no-such-runner' },
      }),
    });
    try {
      mkdirSync(path.join(repo.dir, 'node_modules'));
      const run = await runCli(['setup', repo.dir, '--json'], { env: hostEnv() });
      const report = JSON.parse(run.stdout) as SetupJson;
      expect(run.code).to.equal(1);
      expect(report.tests).to.deep.include({ command: 'npm test', tests_run: null });
      expect(report.problem).to.match(
        /^the test command `npm test` exited \d+ without running a test/,
      );
    } finally {
      repo.cleanup();
    }
  });
});
