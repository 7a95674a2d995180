import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Git, gitEnvironment, isLocalRemote } from '../../src/shell/git.ts';
import { shellLine, shellQuote } from '../../src/shell/quote.ts';
import { ExecaShell } from '../../src/shell/execa-shell.ts';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.email=t@e', '-c', 'user.name=T', ...args], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();

describe('shell/git: the one git module (issue 17 item 5, issue 19 "git with no ambient config")', () => {
  let root: string;
  let origin: string;
  let work: string;
  let home: string;
  let canary: string;

  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'mr-agent-git-'));
    origin = path.join(root, 'origin.git');
    work = path.join(root, 'work');
    home = path.join(root, 'home');
    canary = path.join(root, 'canary');
    await mkdir(home);
    execFileSync('git', ['init', '-q', '--bare', '-b', 'main', origin]);
    execFileSync('git', ['clone', '-q', origin, work], { stdio: 'ignore' });
    await writeFile(path.join(work, 'a.txt'), 'a\n');
    git(work, 'add', '-A');
    git(work, 'commit', '-qm', 'first');
    git(work, 'push', '-q', 'origin', 'HEAD:main');
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  /** A HOME, an XDG folder and a "system" file that each try to run a script through git. */
  async function plantEverywhere(): Promise<Record<string, string>> {
    const script = path.join(root, 'evil.sh');
    await writeFile(script, `#!/bin/sh\nenv >> ${canary}\n`, { mode: 0o755 });
    const hooks = path.join(root, 'hooks');
    await mkdir(hooks);
    for (const name of ['pre-commit', 'post-commit', 'pre-push', 'reference-transaction'])
      await writeFile(path.join(hooks, name), `#!/bin/sh\n${script}\n`, { mode: 0o755 });
    const files = [
      path.join(home, '.gitconfig'),
      path.join(home, 'xdg', 'git', 'config'),
      path.join(root, 'system-gitconfig'),
    ];
    for (const file of files) {
      await mkdir(path.dirname(file), { recursive: true });
      const set = (key: string, value: string) =>
        execFileSync('git', ['config', '--file', file, key, value]);
      set('protocol.ext.allow', 'always');
      set(`url.ext::${script}.insteadOf`, origin);
      set('core.hooksPath', hooks);
      set('core.fsmonitor', script);
      set('core.pager', script);
      set('credential.helper', `!${script}`);
      set('alias.st', `!${script}`);
    }
    return {
      PATH: process.env.PATH ?? '',
      HOME: home,
      XDG_CONFIG_HOME: path.join(home, 'xdg'),
      GIT_CONFIG_SYSTEM: files[2]!,
      GIT_CONFIG_GLOBAL: files[0]!,
      GIT_CONFIG_PARAMETERS: `'core.hooksPath'='${hooks}'`,
    };
  }

  it('issue 19: configuration planted in HOME, XDG_CONFIG_HOME or a host GIT_CONFIG_* never runs for status, diff, commit, fetch or push', async () => {
    const hostEnv = await plantEverywhere();
    const g = new Git({
      shell: new ExecaShell(),
      cwd: work,
      hostEnv,
      identity: { name: 'mr-agent', email: 'mr-agent@example.invalid' },
      allowFileProtocol: true,
    });
    await writeFile(path.join(work, 'b.txt'), 'b\n');

    expect(await g.must(['status', '--short'])).to.equal('?? b.txt');
    await g.must(['add', '-A']);
    await g.must(['diff', '--cached', '--stat']);
    await g.must(['commit', '-q', '-m', 'second']);
    await g.must(['fetch', '-q', origin]);
    await g.must(['push', '-q', origin, 'HEAD:main']);

    expect(existsSync(canary), 'a planted script ran').to.equal(false);
    expect(git(origin, 'log', '-1', '--format=%s%n%an', 'main')).to.equal('second\nmr-agent');
  });

  it('issue 19: ext:: never runs, even when the checkout’s own config allows it; file:// only when asked for', async () => {
    git(work, 'config', 'protocol.ext.allow', 'always');
    git(work, 'config', 'protocol.allow', 'always');
    const hostEnv = { PATH: process.env.PATH ?? '' };
    const g = new Git({ shell: new ExecaShell(), cwd: work, hostEnv });

    const ext = await g.run(['fetch', `ext::sh -c touch% ${canary}`]);
    expect(ext.exitCode).not.to.equal(0);
    expect(ext.stderr).to.match(/transport 'ext' not allowed/);
    expect(existsSync(canary)).to.equal(false);

    const local = await g.run(['fetch', '-q', origin]);
    expect(local.stderr).to.match(/transport 'file' not allowed/);
    const allowed = new Git({
      shell: new ExecaShell(),
      cwd: work,
      hostEnv,
      allowFileProtocol: true,
    });
    expect((await allowed.run(['fetch', '-q', origin])).exitCode).to.equal(0);
  });

  it('issue 19: every call gets its own empty HOME, removed afterwards', async () => {
    const g = new Git({
      shell: new ExecaShell(),
      cwd: work,
      hostEnv: { PATH: process.env.PATH ?? '', HOME: home },
    });
    const seen: string[] = [];
    for (let i = 0; i < 2; i += 1) {
      const out = await g.must(['-c', 'alias.home=!echo "$HOME"; ls -A "$HOME" | wc -l', 'home']);
      seen.push(out);
    }
    const homes = seen.map((s) => s.split('\n')[0]!);
    expect(homes[0]).not.to.equal(home);
    expect(homes[0]).not.to.equal(homes[1]);
    expect(seen.map((s) => s.split('\n')[1]!.trim())).to.deep.equal(['0', '0']);
    for (const dir of homes) expect(existsSync(dir)).to.equal(false);
  });

  it('issue 17 item 5: one allow-list on sandbox-env: no token, no host git setting, no HOME; CA files and proxies stay', () => {
    const env = gitEnvironment(
      {
        PATH: '/usr/bin',
        HOME: '/home/ci',
        LANG: 'C.UTF-8',
        LC_ALL: 'C',
        TMPDIR: '/tmp',
        SSL_CERT_FILE: '/etc/ssl/ca.pem',
        GIT_SSL_CAINFO: '/etc/ssl/gitlab.pem',
        https_proxy: 'http://user:pw@proxy.example:3128',
        NO_PROXY: 'localhost',
        CI_JOB_TOKEN: 'job-token-value',
        MR_AGENT_GITLAB_TOKEN: 'glpat-secret',
        OPENAI_API_KEY: 'sk-secret',
        MY_PASSWORD: 'pw',
        GIT_DIR: '/elsewhere',
        GIT_SSH_COMMAND: 'evil',
        GIT_ASKPASS: '/evil',
        GIT_CONFIG_PARAMETERS: "'core.pager'='evil'",
        XDG_CONFIG_HOME: '/planted',
        JAVA_HOME: '/opt/java',
      },
      false,
    );

    expect(env).to.deep.equal({
      PATH: '/usr/bin',
      LANG: 'C.UTF-8',
      LC_ALL: 'C',
      TMPDIR: '/tmp',
      SSL_CERT_FILE: '/etc/ssl/ca.pem',
      GIT_SSL_CAINFO: '/etc/ssl/gitlab.pem',
      https_proxy: 'http://user:pw@proxy.example:3128',
      NO_PROXY: 'localhost',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_ATTR_NOSYSTEM: '1',
      GIT_ALLOW_PROTOCOL: 'https:http',
      GIT_TERMINAL_PROMPT: '0',
      GIT_EDITOR: 'true',
      GIT_SEQUENCE_EDITOR: 'true',
      GIT_PAGER: 'cat',
    });
    expect(gitEnvironment({}, true).GIT_ALLOW_PROTOCOL).to.equal('https:http:file');
    // the runner's CA file for an instance with its own CA, unless GIT_SSL_CAINFO is set
    expect(gitEnvironment({ CI_SERVER_TLS_CA_FILE: '/b/ca.crt' }, false)).to.include({
      GIT_SSL_CAINFO: '/b/ca.crt',
    });
  });

  it('local remotes are paths and file:// URLs; quoting keeps every word one word for sh -c', () => {
    expect(isLocalRemote('file:///srv/a.git')).to.equal(true);
    expect(isLocalRemote('/srv/a.git')).to.equal(true);
    expect(isLocalRemote('https://gitlab.example/a.git')).to.equal(false);
    expect(shellQuote("it's; rm -rf /")).to.equal(`'it'\\''s; rm -rf /'`);
    expect(shellQuote('')).to.equal(`''`);
    expect(shellLine(['git', '-c', 'credential.helper=', 'a b'])).to.equal(
      `git -c credential.helper= 'a b'`,
    );
  });
});
