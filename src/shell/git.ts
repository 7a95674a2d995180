/**
 * The one way the job runs git (docs/security.md, "Git with no ambient
 * configuration"): over the Shell port, with the git allow-list of
 * sandbox-env.ts and none of the host's or the user's git configuration.
 *
 * - `GIT_CONFIG_GLOBAL=/dev/null`, `GIT_CONFIG_NOSYSTEM=1` and a private,
 *   empty, temporary `HOME` per call: a `~/.gitconfig`, `~/.netrc` or
 *   `~/.config/git/*` written by the agent's commands is never read.
 * - `GIT_ALLOW_PROTOCOL=https:http` (plus `file` when the caller allows it):
 *   it overrides every `protocol.*.allow`, so no `ext::` or `fd::` transport
 *   runs, whatever a configuration file says.
 * - no credential helper, no askpass program, no terminal prompt, no hooks,
 *   no file-system monitor.
 * - the push token travels only as an HTTP header given through git's
 *   `GIT_CONFIG_COUNT/KEY/VALUE` environment (git ≥ 2.31), scoped to the
 *   remote's origin, and only for the commands that talk to a remote: never
 *   on the command line, never in a URL, never written to `.git/config`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { tail, type Shell } from '../core/shell-port.ts';
import type { GitOptions, GitResult, GitRunner } from '../core/checkout-port.ts';
import { shellLine } from './quote.ts';
import { gitHostEnv } from './sandbox-env.ts';

export type { GitOptions, GitResult } from '../core/checkout-port.ts';
export { isLocalRemote } from '../core/checkout-port.ts';

/** Only these talk to the remote, so only these get the token (never add, commit, rebase). */
const NETWORK_COMMANDS = new Set(['push', 'fetch', 'ls-remote', 'pull', 'clone']);
const DEFAULT_MAX_OUTPUT = 64 * 1024 * 1024;

/**
 * Settings given on the command line (the highest precedence): they win over
 * the checkout's own `.git/config`. They switch off every way git has to run
 * a program or to open another repository's configuration: hooks, the
 * file-system monitor, submodules (a submodule's git directory and config may
 * be the command user's: `git status` would run its filters), pagers, ssh,
 * signing, background maintenance. Git passes them on to every git it starts.
 */
export function hardeningSettings(allowFile: boolean): string[] {
  return [
    'core.hooksPath=/dev/null',
    'core.fsmonitor=false',
    'core.attributesFile=/dev/null',
    'core.pager=cat',
    'core.sshCommand=false',
    'core.askPass=',
    'credential.helper=',
    'submodule.recurse=false',
    'diff.ignoreSubmodules=all',
    'status.submoduleSummary=false',
    'fetch.recurseSubmodules=false',
    'push.recurseSubmodules=no',
    'commit.gpgSign=false',
    'tag.gpgSign=false',
    'gc.auto=0',
    'maintenance.auto=false',
    'protocol.allow=never',
    'protocol.https.allow=always',
    'protocol.http.allow=always',
    ...(allowFile ? ['protocol.file.allow=always'] : []),
  ];
}

function hardeningConfig(allowFile: boolean): string[] {
  return hardeningSettings(allowFile).flatMap((s) => ['-c', s]);
}

function authConfig(
  remoteUrl: string | undefined,
  token: string | undefined,
  user: string,
): Record<string, string> {
  if (!token || !remoteUrl || !/^https?:\/\//.test(remoteUrl)) return {};
  const origin = new URL(remoteUrl);
  const scope = `${origin.protocol}//${origin.host}/`;
  const basic = Buffer.from(`${user}:${token}`).toString('base64');
  return {
    GIT_CONFIG_COUNT: '1',
    GIT_CONFIG_KEY_0: `http.${scope}.extraHeader`,
    GIT_CONFIG_VALUE_0: `Authorization: Basic ${basic}`,
  };
}

/**
 * The environment of every git call, `HOME` apart (it is made per call). The
 * CA file GitLab Runner provides for an instance with its own CA
 * (`CI_SERVER_TLS_CA_FILE`) becomes `GIT_SSL_CAINFO`, since the runner's
 * global git configuration that names it is not read.
 */
export function gitEnvironment(
  hostEnv: Readonly<Record<string, string | undefined>>,
  allowFile: boolean,
): Record<string, string> {
  const caFile = hostEnv.CI_SERVER_TLS_CA_FILE;
  return {
    ...(caFile ? { GIT_SSL_CAINFO: caFile } : {}),
    ...gitHostEnv(hostEnv),
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_ATTR_NOSYSTEM: '1',
    GIT_ALLOW_PROTOCOL: allowFile ? 'https:http:file' : 'https:http',
    GIT_TERMINAL_PROMPT: '0',
    GIT_EDITOR: 'true',
    GIT_SEQUENCE_EDITOR: 'true',
    GIT_PAGER: 'cat',
  };
}

export class Git implements GitRunner {
  private readonly shell: Shell;
  private readonly env: Record<string, string>;
  private readonly networkEnv: Record<string, string>;
  private readonly prefix: string[];

  constructor(private readonly options: GitOptions) {
    this.shell = options.shell;
    const allowFile = options.allowFileProtocol === true;
    this.env = gitEnvironment(options.hostEnv, allowFile);
    const auth = authConfig(options.remoteUrl, options.token, options.tokenUser ?? 'oauth2');
    this.networkEnv = { ...this.env, ...auth };
    options.redactor?.add(options.token);
    const identity = options.identity
      ? ['-c', `user.name=${options.identity.name}`, '-c', `user.email=${options.identity.email}`]
      : [];
    const bare = options.gitDirOnly ? ['-c', 'core.bare=true'] : [];
    this.prefix = [...hardeningConfig(allowFile), ...bare, ...identity];
  }

  /**
   * The same git on the repository's git directory alone (see
   * `gitDirOnly`): for work on commits and trees that must not read or
   * write the checkout's files, which the command user may have changed.
   */
  async onGitDirOnly(): Promise<Git> {
    const gitDir = (await this.must(['rev-parse', '--absolute-git-dir'])).trim();
    return new Git({ ...this.options, cwd: gitDir, gitDirOnly: true });
  }

  /**
   * Runs git; never throws for a non-zero exit (the caller decides). `env`
   * adds variables of git's own (e.g. `GIT_AUTHOR_DATE`) to this call.
   */
  async run(
    args: readonly string[],
    input?: string,
    env?: Readonly<Record<string, string>>,
  ): Promise<GitResult> {
    const home = await mkdtemp(path.join(tmpdir(), 'mr-agent-git-home-'));
    try {
      const network = NETWORK_COMMANDS.has(args[0] ?? '');
      const result = await this.shell.run({
        command: `exec ${shellLine(['git', ...this.prefix, ...args])}`,
        cwd: this.options.cwd,
        env: {
          ...(network ? this.networkEnv : this.env),
          ...env,
          HOME: home,
          // never a repository above the checkout: a git directory found there is nobody's choice
          GIT_CEILING_DIRECTORIES: path.dirname(path.resolve(this.options.cwd)),
          ...(this.options.gitDirOnly ? { GIT_DIR: path.resolve(this.options.cwd) } : {}),
        },
        maxOutputBytes: this.options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT,
        ...(this.options.timeoutMs ? { timeoutMs: this.options.timeoutMs } : {}),
        ...(this.options.signal ? { signal: this.options.signal } : {}),
        ...(input !== undefined ? { input } : {}),
      });
      const outcome = {
        exitCode: result.exitCode ?? -1,
        stdout: result.stdout,
        stderr: result.spawnError ?? result.stderr,
      };
      this.options.logger?.debug('git finished', {
        args: this.redact(args.join(' ')),
        exitCode: outcome.exitCode,
        stderr: this.redact(tail(outcome.stderr, 500)),
      });
      return outcome;
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  }

  /** Runs git and returns stdout; a failure becomes an Error with the redacted stderr. */
  async must(
    args: readonly string[],
    input?: string,
    env?: Readonly<Record<string, string>>,
  ): Promise<string> {
    const result = await this.run(args, input, env);
    if (result.exitCode !== 0)
      throw new Error(
        `git ${args[0]} failed (exit ${result.exitCode}): ${this.redact(tail(result.stderr, 800))}`,
      );
    return result.stdout;
  }

  private redact(text: string): string {
    return this.options.redactor ? this.options.redactor.redact(text) : text;
  }
}
