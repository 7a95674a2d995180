import { expect } from 'chai';
import {
  BASE_HOST_NAMES,
  GITLAB_CREDENTIALS,
  hasUrlCredentials,
  sandboxEnv,
} from '../../src/shell/sandbox-env.ts';
import { workerEnv } from '../../src/workers/env.ts';

const HOST = {
  PATH: '/usr/bin:/bin',
  HOME: '/home/ci',
  LANG: 'C.UTF-8',
  LC_ALL: 'C',
  JAVA_HOME: '/opt/java',
  PIP_INDEX_URL: 'https://pypi.example/simple',
  CI_JOB_TOKEN: 'job-token-value',
  CI_REPOSITORY_URL: 'https://gitlab-ci-token:job-token-value@gitlab.example/a/b.git',
  MR_AGENT_GITLAB_TOKEN: 'glpat-secret',
  MR_AGENT_TRIGGER_TOKEN: 'glptt-secret',
  MR_AGENT_WEBHOOK_SECRET: 'hook-secret',
  OPENAI_API_KEY: 'sk-secret',
  MY_SERVICE_PASSWORD: 'pw',
  TRIGGER_PAYLOAD: '/tmp/payload.json',
  RANDOM_VAR: 'x',
};

describe('shell/sandbox-env (M1)', () => {
  it('M1 a command sees the allow-listed host variables and no credential', () => {
    expect(sandboxEnv(HOST)).to.deep.equal({
      PATH: '/usr/bin:/bin',
      HOME: '/home/ci',
      LANG: 'C.UTF-8',
      LC_ALL: 'C',
      JAVA_HOME: '/opt/java',
      PIP_INDEX_URL: 'https://pypi.example/simple',
      CI: 'true',
    });
  });

  it('M1 an allow-listed variable holding URL credentials is dropped', () => {
    const env = sandboxEnv({ ...HOST, PIP_INDEX_URL: 'https://user:s3cret@pypi.example/simple' });
    expect(env).not.to.have.property('PIP_INDEX_URL');
    expect(hasUrlCredentials('https://gitlab-ci-token:abc@gitlab.example/x.git')).to.equal(true);
    expect(hasUrlCredentials('https://__token__@pypi.example/simple')).to.equal(true);
    expect(hasUrlCredentials('https://pypi.example/simple')).to.equal(false);
    expect(hasUrlCredentials('https://pypi.example/a@b')).to.equal(false);
    expect(hasUrlCredentials('git@gitlab.example:a/b.git')).to.equal(false);
  });

  it('M1 package-manager mirrors, proxies and corepack settings reach setup commands; their secrets never do', () => {
    const host = {
      PATH: '/usr/bin',
      npm_config_registry: 'https://npm.mirror.example/',
      NPM_CONFIG_STRICT_SSL: 'true',
      'npm_config_//npm.mirror.example/:_authToken': 'npm-secret',
      COREPACK_INTEGRITY_KEYS: '0',
      COREPACK_NPM_REGISTRY: 'https://npm.mirror.example/',
      COREPACK_NPM_TOKEN: 'corepack-secret',
      YARN_NPM_REGISTRY_SERVER: 'https://npm.mirror.example/',
      YARN_NPM_AUTH_TOKEN: 'yarn-secret',
      PIP_INDEX_URL: 'https://pypi.mirror.example/simple',
      PIP_EXTRA_INDEX_URL: 'https://user:pw@private.example/simple',
      UV_INDEX_URL: 'https://pypi.mirror.example/simple',
      UV_INDEX_INTERNAL_PASSWORD: 'uv-secret',
      GOPROXY: 'https://goproxy.example,direct',
      GOFLAGS: '-mod=mod',
      GOPRIVATE: 'gitlab.example/*',
      MAVEN_ARGS: '-s /etc/maven/mirror-settings.xml',
      GRADLE_OPTS: '-Dorg.gradle.internal.repository.max.retries=5',
      HTTPS_PROXY: 'http://proxy.example:3128',
      HTTP_PROXY: 'http://user:pw@proxy.example:3128',
      NO_PROXY: 'localhost,.example',
      NODE_EXTRA_CA_CERTS: '/etc/ssl/mirror-ca.pem',
    };
    const env = sandboxEnv(host);
    for (const name of [
      'npm_config_registry',
      'NPM_CONFIG_STRICT_SSL',
      'COREPACK_INTEGRITY_KEYS',
      'COREPACK_NPM_REGISTRY',
      'YARN_NPM_REGISTRY_SERVER',
      'PIP_INDEX_URL',
      'UV_INDEX_URL',
      'GOPROXY',
      'GOFLAGS',
      'GOPRIVATE',
      'MAVEN_ARGS',
      'GRADLE_OPTS',
      'HTTPS_PROXY',
      'NO_PROXY',
      'NODE_EXTRA_CA_CERTS',
    ])
      expect(env, name).to.have.property(name, host[name as keyof typeof host]);
    for (const name of [
      'npm_config_//npm.mirror.example/:_authToken',
      'COREPACK_NPM_TOKEN',
      'YARN_NPM_AUTH_TOKEN',
      'UV_INDEX_INTERNAL_PASSWORD',
      'PIP_EXTRA_INDEX_URL',
      'HTTP_PROXY',
    ])
      expect(env, name).not.to.have.property(name);
    // a worker CLI gets none of them: only the base names
    expect(workerEnv(host, {})).not.to.have.property('npm_config_registry');
  });

  it("M1 the switches that skip a package's own binary download pass (a network that reaches only the registry)", () => {
    const host = {
      PUPPETEER_SKIP_DOWNLOAD: '1',
      PUPPETEER_SKIP_CHROMIUM_DOWNLOAD: 'true',
      PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1',
      CYPRESS_INSTALL_BINARY: '0',
      ELECTRON_SKIP_BINARY_DOWNLOAD: '1',
      CHROMEDRIVER_SKIP_DOWNLOAD: 'true',
      SOME_OTHER_SETTING: 'x',
    };
    const env = sandboxEnv(host);
    for (const name of Object.keys(host).filter((n) => n !== 'SOME_OTHER_SETTING'))
      expect(env, name).to.have.property(name, host[name as keyof typeof host]);
    expect(env).not.to.have.property('SOME_OTHER_SETTING');
  });

  it('M1 extra variables never re-add a GitLab credential or the LLM key', () => {
    const env = sandboxEnv({}, { MR_AGENT_GITLAB_TOKEN: 'x', OPENAI_API_KEY: 'y', FOO: 'bar' });
    expect(env).to.deep.equal({ FOO: 'bar', CI: 'true' });
  });

  it('M1 one allow-list: a worker gets the base names a command gets, without the toolchain', () => {
    const host = Object.fromEntries([...BASE_HOST_NAMES].map((name) => [name, `v-${name}`]));
    const command = sandboxEnv({ ...host, JAVA_HOME: '/opt/java' });
    const worker = workerEnv({ ...host, JAVA_HOME: '/opt/java' }, {});
    for (const name of BASE_HOST_NAMES) {
      expect(command[name], name).to.equal(`v-${name}`);
      expect(worker[name], name).to.equal(`v-${name}`);
    }
    expect(command).to.have.property('JAVA_HOME');
    expect(worker).not.to.have.property('JAVA_HOME');
  });

  it('M1 every GitLab credential is refused in runner.worker.env and dropped from the host', () => {
    for (const name of GITLAB_CREDENTIALS) {
      expect(() => workerEnv({}, { [name]: 'x' }), name).to.throw(/GitLab credential/);
      expect(workerEnv({ [name]: 'x' }, {}), name).to.deep.equal({});
      expect(sandboxEnv({ [name]: 'x' }), name).to.deep.equal({ CI: 'true' });
    }
  });
});
