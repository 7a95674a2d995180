import { expect } from 'chai';
import { classifyFailure } from '../../../src/phases/environment/classify.ts';
import { fetchHosts } from '../../../src/phases/environment/fetch-hosts.ts';
import { setupEnvironment } from '../../../src/phases/environment/setup.ts';
import { ScriptedJsonLlm } from './fake-llm.ts';
import { realDeps, tempRepo } from './support.ts';

/**
 * A dependency fetched from a host the runner cannot resolve (a GitHub
 * tarball, a git URL) is not a network blip: setup ends at once with the
 * host named, while a DNS failure of the registry itself (or the proxy)
 * stays a retryable network error. The texts are the shapes npm, pnpm, Yarn
 * 1, Yarn Berry, git and ssh print for a failed name lookup, written for
 * this test (`.invalid` hosts never resolve, RFC 6761).
 */

const NPM = [
  'npm error code ENOTFOUND',
  'npm error syscall getaddrinfo',
  'npm error errno ENOTFOUND',
  'npm error network request to https://codeload.example.invalid/acme/widget/tar.gz/0a1b2c failed, reason: getaddrinfo ENOTFOUND codeload.example.invalid',
  'npm error network This is a problem related to network connectivity.',
].join('\n');

const NPM6 = [
  'npm ERR! code EAI_AGAIN',
  'npm ERR! errno EAI_AGAIN',
  'npm ERR! request to https://tarballs.example.invalid/widget-1.0.0.tgz failed, reason: getaddrinfo EAI_AGAIN tarballs.example.invalid',
].join('\n');

const PNPM = [
  ' WARN  GET https://codeload.example.invalid/acme/widget/tar.gz/0a1b2c error (ENOTFOUND). Will retry in 10 seconds. 2 retries left.',
  ' ENOTFOUND  request to https://codeload.example.invalid/acme/widget/tar.gz/0a1b2c failed, reason: getaddrinfo ENOTFOUND codeload.example.invalid',
  '',
  'This error happened while installing a direct dependency of /builds/app',
].join('\n');

const YARN1 = [
  'yarn install v1.22.22',
  'info No lockfile found.',
  '[1/4] Resolving packages...',
  'error Error: getaddrinfo ENOTFOUND codeload.example.invalid',
  '    at GetAddrInfoReqWrap.onlookup [as oncomplete] (node:dns:120:26)',
  'info Visit https://yarnpkg.com/en/docs/cli/install for documentation about this command.',
].join('\n');

const BERRY = [
  '➤ YN0000: ┌ Resolution step',
  '➤ YN0001: │ RequestError: getaddrinfo ENOTFOUND codeload.example.invalid',
  '    at ClientRequest.<anonymous> (/builds/app/.yarn/releases/yarn-4.5.0.cjs:147:14258)',
  '➤ YN0000: └ Completed in 0s 212ms',
  '➤ YN0000: · Failed with errors in 0s 215ms',
].join('\n');

const GIT = [
  'npm error code 128',
  'npm error An unknown git error occurred',
  'npm error command git --no-replace-objects ls-remote https://git.example.invalid/acme/widget.git',
  "npm error fatal: unable to access 'https://git.example.invalid/acme/widget.git/': Could not resolve host: git.example.invalid",
].join('\n');

const SSH = [
  'npm error command git --no-replace-objects ls-remote ssh://git@git.example.invalid/acme/widget.git',
  'npm error ssh: Could not resolve hostname git.example.invalid: Name or service not known',
  'npm error fatal: Could not read from remote repository.',
].join('\n');

const REGISTRY_DOWN = [
  'npm error code ENOTFOUND',
  'npm error network request to https://registry.npmjs.org/left-pad failed, reason: getaddrinfo ENOTFOUND registry.npmjs.org',
  'npm error network This is a problem related to network connectivity.',
].join('\n');

const DEFAULTS = fetchHosts({}, undefined);

describe('a dependency host the runner cannot resolve (SPEC E2)', () => {
  const cases: [string, string, string][] = [
    ['npm 10+', NPM, 'codeload.example.invalid'],
    ['npm 6 (EAI_AGAIN)', NPM6, 'tarballs.example.invalid'],
    ['pnpm', PNPM, 'codeload.example.invalid'],
    ['Yarn 1', YARN1, 'codeload.example.invalid'],
    ['Yarn Berry', BERRY, 'codeload.example.invalid'],
    ['git over https', GIT, 'git.example.invalid'],
    ['git over ssh', SSH, 'git.example.invalid'],
  ];
  for (const [tool, output, host] of cases) {
    it(`E2 ${tool}: a host that is not the registry ends setup at once, naming ${host}`, () => {
      const result = classifyFailure({ exitCode: 1, output }, { fetchHosts: DEFAULTS });
      expect(result).to.include({ class: 'fatal', kind: 'unreachable-host', tool: 'dns' });
      expect(result.evidence).to.include(host);
      expect(result.hint).to.include(`\`${host}\``);
      expect(result.hint).to.match(/let the runner reach that host, or vendor or mirror/);
      expect(result.hintKey).to.equal('envHint.unreachableHost');
      expect(result.hintParams).to.deep.equal({ host });
    });
  }

  it('E2 a DNS failure of the default registry stays a retryable network error', () => {
    const result = classifyFailure(
      { exitCode: 1, output: REGISTRY_DOWN },
      { fetchHosts: DEFAULTS },
    );
    expect(result).to.include({ class: 'retryable', kind: 'network' });
  });

  it('E2 the registry npm_config_registry names (any case of the name, with a port) stays retryable', () => {
    const output = NPM.replaceAll('codeload.example.invalid', 'npm.mirror.invalid');
    const hosts = fetchHosts(
      { NPM_CONFIG_REGISTRY: 'https://npm.mirror.invalid:8443/repo/' },
      undefined,
    );
    expect(classifyFailure({ exitCode: 1, output }, { fetchHosts: hosts })).to.include({
      class: 'retryable',
      kind: 'network',
    });
  });

  it('E2 a proxy, a Yarn or corepack registry and a scoped registry count as the registry', () => {
    const hosts = fetchHosts(
      {
        HTTPS_PROXY: 'http://user:secret@proxy.corp.invalid:3128',
        YARN_NPM_REGISTRY_SERVER: 'https://yarn.mirror.invalid',
        COREPACK_NPM_REGISTRY: 'https://corepack.mirror.invalid/npm',
        'npm_config_@acme:registry': 'https://acme.registry.invalid/',
      },
      undefined,
    );
    for (const host of [
      'proxy.corp.invalid',
      'yarn.mirror.invalid',
      'corepack.mirror.invalid',
      'acme.registry.invalid',
      'registry.npmjs.org',
      'registry.yarnpkg.com',
    ])
      expect(hosts, host).to.include(host);
  });

  it("E2 the project's own .npmrc and .yarnrc.yml registries count as the registry", () => {
    const repo = tempRepo({
      '.npmrc':
        'registry=https://npm.corp.invalid/\n@acme:registry = "https://acme.corp.invalid"\n',
      '.yarnrc.yml': 'npmRegistryServer: "https://yarn.corp.invalid"\n',
    });
    try {
      const hosts = fetchHosts({}, repo.dir);
      expect(hosts).to.include.members([
        'npm.corp.invalid',
        'acme.corp.invalid',
        'yarn.corp.invalid',
      ]);
      const output = NPM.replaceAll('codeload.example.invalid', 'npm.corp.invalid');
      expect(classifyFailure({ exitCode: 1, output }, { fetchHosts: hosts })).to.include({
        kind: 'network',
      });
    } finally {
      repo.cleanup();
    }
  });

  it('E2 when the registry also failed to resolve, it is the network: retried', () => {
    const output = `${NPM}\n${REGISTRY_DOWN}`;
    expect(classifyFailure({ exitCode: 1, output }, { fetchHosts: DEFAULTS })).to.include({
      class: 'retryable',
      kind: 'network',
    });
  });

  it('E2 a refused connection or a timeout to another host is still the network', () => {
    const output =
      'npm error network request to https://codeload.example.invalid/x.tgz failed, reason: connect ETIMEDOUT 192.0.2.1:443';
    expect(classifyFailure({ exitCode: 1, output }, { fetchHosts: DEFAULTS })).to.include({
      kind: 'network',
    });
  });
});

describe("the job's setup and a dependency host that does not resolve (SPEC E2)", function () {
  this.timeout(30_000);
  let repo: ReturnType<typeof tempRepo> | undefined;
  afterEach(() => repo?.cleanup());

  const tarballProject = {
    'package.json': JSON.stringify({
      name: 'tarball-dep',
      version: '1.0.0',
      dependencies: { widget: 'https://tarballs.example.invalid/acme/widget-1.0.0.tgz' },
    }),
    '.npmrc': 'fetch-retries=0\n',
  };

  for (const language of ['en', 'ja'] as const) {
    it(`E2 real npm: no retry, no regeneration, and the ${language} failure note names the host`, async () => {
      repo = tempRepo(tarballProject);
      // a model is configured: a fixable failure would ask it, this one must not
      const llm = new ScriptedJsonLlm();
      const { deps, clock } = realDeps(repo.dir, llm, { language });
      const result = await setupEnvironment(
        {
          name: 'node',
          setup_commands: ['npm install --no-audit --no-fund --no-package-lock'],
          verification: [
            { command: 'node -e "process.stdout.write(\'OK\')"', expected_output: 'OK' },
          ],
        },
        deps,
      );
      expect(result.handoff.setup_status).to.equal('failed');
      expect(result.records[0]!.attempts).to.equal(1);
      expect(result.retries).to.deep.equal({ network: 0, 'server-error': 0, lock: 0 });
      expect(clock.sleeps).to.deep.equal([]);
      expect(llm.requests).to.have.length(0);
      expect(result.classification).to.include({ class: 'fatal', kind: 'unreachable-host' });
      expect(result.note).to.include('`tarballs.example.invalid`');
      expect(result.note).to.include(
        language === 'en'
          ? 'a host the runner cannot resolve is not retried'
          : 'ランナーが名前を解決できないホストへの取得は再試行しません',
      );
    });
  }
});
