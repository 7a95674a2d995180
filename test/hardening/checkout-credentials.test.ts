import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ExecaShell } from '../../src/shell/execa-shell.ts';
import { startIsolation } from '../../src/shell/isolation.ts';
import { isolatedRequest } from '../../src/core/isolation.ts';
import { sandboxEnv } from '../../src/shell/sandbox-env.ts';

/**
 * Credentials never in the checkout (SPEC M1, M5): GitLab Runner before 18.0
 * leaves `https://gitlab-ci-token:<token>@host/…` in `.git/config`, where the
 * command user reads it. After the isolation is set up, nothing the command
 * user can read — the checkout with its `.git`, its home, `/tmp`, its own
 * environment — holds any secret of the job in any of a dozen encodings.
 */
const isRoot = process.getuid?.() === 0;

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null' },
  }).trim();

function rot13(text: string): string {
  return text.replace(/[a-z]/gi, (c) => {
    const base = c <= 'Z' ? 65 : 97;
    return String.fromCharCode(((c.charCodeAt(0) - base + 13) % 26) + base);
  });
}

function base32(bytes: Buffer): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const byte of bytes) bits += byte.toString(2).padStart(8, '0');
  let out = '';
  for (let i = 0; i + 5 <= bits.length; i += 5) out += alphabet[parseInt(bits.slice(i, i + 5), 2)];
  return out;
}

/** The forms searched for, named: a hit names the form. */
function encodings(secret: string): Record<string, string> {
  const bytes = Buffer.from(secret);
  const forms: Record<string, string> = {
    plain: secret,
    'url-encoded': encodeURIComponent(secret),
    hex: bytes.toString('hex'),
    HEX: bytes.toString('hex').toUpperCase(),
    rot13: rot13(secret),
    base32: base32(bytes),
    reversed: [...secret].reverse().join(''),
    'basic auth': Buffer.from(`gitlab-ci-token:${secret}`).toString('base64').slice(0, 24),
    'json-escaped': JSON.stringify(secret).slice(1, -1),
  };
  for (let shift = 0; shift < 3; shift++) {
    const inner = bytes.subarray(shift);
    const aligned = inner.subarray(0, inner.length - (inner.length % 3));
    forms[`base64+${shift}`] = aligned.toString('base64');
    forms[`base64url+${shift}`] = aligned.toString('base64url');
  }
  return forms;
}

function hits(text: string, secrets: Record<string, string>): string[] {
  const found: string[] = [];
  for (const [name, secret] of Object.entries(secrets))
    for (const [form, value] of Object.entries(encodings(secret)))
      if (text.includes(value)) found.push(`${name} (${form})`);
  return found;
}

describe('hardening: no credential in anything the command user can read (SPEC M1, M5)', function () {
  this.timeout(30_000);

  it('M5 after setup, the checkout (.git included), the command user’s home, /tmp and its environment hold no secret in any of 15 encodings', async function () {
    if (!isRoot) this.skip();
    const secrets = {
      'job token': `jobtok-${randomBytes(12).toString('hex')}`,
      'GitLab token': `glpat-${randomBytes(12).toString('hex')}`,
      'LLM key': `sk-${randomBytes(16).toString('hex')}`,
    };
    // what the test and the agent write in /tmp is newer than this: the search there reads those
    // files (a secret of this test can be in no older one), not what other runs left behind
    const since = path.join(
      tmpdir(),
      `checkout-credentials-since-${randomBytes(6).toString('hex')}`,
    );
    await writeFile(since, '', { mode: 0o644 });
    const base = await mkdtemp(path.join(tmpdir(), 'checkout-credentials-'));
    try {
      const remote = path.join(base, 'remote.git');
      git(base, 'init', '-q', '--bare', '-b', 'main', remote);
      const checkout = path.join(base, 'project');
      git(base, 'clone', '-q', remote, checkout);
      await writeFile(path.join(checkout, 'a.txt'), 'a\n');
      // what GitLab Runner < 18.0 leaves behind, and what git records from such a URL
      const url = (user: string, token: string) =>
        `https://${user}:${token}@gitlab.example.com/group/project.git`;
      git(checkout, 'remote', 'set-url', 'origin', url('gitlab-ci-token', secrets['job token']));
      git(checkout, 'config', 'remote.origin.pushurl', url('oauth2', secrets['GitLab token']));
      git(checkout, 'config', 'remote.mirror.url', `https://${secrets['job token']}@mirror/x.git`);
      await writeFile(
        path.join(checkout, '.git/FETCH_HEAD'),
        `0123456789012345678901234567890123456789\t\tbranch 'main' of ${url('gitlab-ci-token', secrets['job token'])}\n`,
      );
      await mkdir(path.join(checkout, '.git/logs'), { recursive: true });
      await writeFile(
        path.join(checkout, '.git/logs/HEAD'),
        `0000000000000000000000000000000000000000 0123456789012345678901234567890123456789 ci <ci@x> 1700000000 +0000\tclone: from ${url('gitlab-ci-token', secrets['job token'])}\n`,
      );
      await mkdir(path.join(checkout, '.git/modules/lib'), { recursive: true });
      await writeFile(
        path.join(checkout, '.git/modules/lib/config'),
        `[remote "origin"]\n\turl = ${url('gitlab-ci-token', secrets['job token'])}\n`,
      );
      // a file-type CI/CD variable, where the runner writes them
      await mkdir(`${checkout}.tmp`);
      await writeFile(path.join(`${checkout}.tmp`, 'LLM_KEY'), secrets['LLM key']);
      const hostEnv = {
        PATH: process.env.PATH ?? '',
        CI: 'true',
        CI_JOB_TOKEN: secrets['job token'],
        MR_AGENT_GITLAB_TOKEN: secrets['GitLab token'],
        OPENAI_API_KEY: secrets['LLM key'],
        CI_REPOSITORY_URL: url('gitlab-ci-token', secrets['job token']),
      };
      // the search finds what it looks for
      expect(hits(await readFile(path.join(checkout, '.git/config'), 'utf8'), secrets)).to.include(
        'job token (plain)',
      );

      const isolation = await startIsolation({
        security: { isolation: 'required', command_user: 'agent' },
        checkout,
        stateDir: '.mr-agent',
        secrets: Object.values(secrets),
      });
      if (isolation.kind !== 'separate-user') throw new Error('needs root and a second user');
      const result = await new ExecaShell().run({
        ...(await isolatedRequest(isolation, {
          command: [
            'env',
            'tr "\\0" "\\n" < /proc/self/environ',
            'git config --list',
            `{ find "$PWD" "$HOME" -xdev -type f -readable -size -1024k -print0; find /tmp -xdev -type f -readable -size -1024k -newer ${JSON.stringify(since)} -print0; } 2>/dev/null | xargs -0 cat 2>/dev/null`,
          ].join('; '),
          cwd: checkout,
          env: sandboxEnv(hostEnv),
        })),
        maxOutputBytes: 512 * 1024 * 1024,
      });
      expect(result.stdout, 'the command user read the checkout').to.contain('[remote "origin"]');
      expect(result.stdout).to.contain(
        'remote.origin.url=https://gitlab.example.com/group/project.git',
      );
      expect(hits(result.stdout, secrets)).to.deep.equal([]);
      // the remote still names the project, only without the credentials
      expect(git(checkout, 'remote', 'get-url', 'origin')).to.equal(
        'https://gitlab.example.com/group/project.git',
      );
    } finally {
      await rm(base, { recursive: true, force: true });
      await rm(`${path.join(base, 'project')}.tmp`, { recursive: true, force: true });
      await rm(since, { force: true });
    }
  });
});
