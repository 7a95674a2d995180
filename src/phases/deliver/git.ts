/**
 * Git for delivery: real git through execa, with an explicit environment.
 * The push token travels only as an HTTP header given through git's
 * `GIT_CONFIG_COUNT/KEY/VALUE` environment (git ≥ 2.31): never on the command
 * line, never in the remote URL, never written to `.git/config`.
 */
import { execa } from 'execa';
import type { Logger } from '../../log/logger.ts';
import type { Redactor } from '../../log/redact.ts';
import { tail } from '../../core/shell-port.ts';

export interface GitResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Host variables git may need (proxies, CA files, locale); nothing secret. */
const PASSED_THROUGH = [
  'PATH',
  'HOME',
  'USER',
  'LANG',
  'LC_ALL',
  'TMPDIR',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'GIT_SSL_CAINFO',
  'GIT_SSL_NO_VERIFY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
];

export interface GitOptions {
  cwd: string;
  hostEnv: Readonly<Record<string, string | undefined>>;
  redactor: Redactor;
  logger: Logger;
  /** Token for HTTPS remotes (sent as `Authorization: Basic` for that remote only). */
  token?: string | undefined;
  /** The remote URL the token is for. */
  remoteUrl?: string | undefined;
  /** Author and committer of commits and rebases. */
  identity: { name: string; email: string };
}

function authConfig(
  remoteUrl: string | undefined,
  token: string | undefined,
): Record<string, string> {
  if (!token || !remoteUrl || !/^https?:\/\//.test(remoteUrl)) return {};
  const origin = new URL(remoteUrl);
  const scope = `${origin.protocol}//${origin.host}/`;
  const basic = Buffer.from(`oauth2:${token}`).toString('base64');
  return {
    GIT_CONFIG_COUNT: '2',
    GIT_CONFIG_KEY_0: `http.${scope}.extraHeader`,
    GIT_CONFIG_VALUE_0: `Authorization: Basic ${basic}`,
    GIT_CONFIG_KEY_1: 'credential.helper',
    GIT_CONFIG_VALUE_1: '',
  };
}

/** Only these talk to the remote, so only these get the token (never add, commit, rebase). */
const NETWORK_COMMANDS = new Set(['push', 'fetch', 'ls-remote']);

/**
 * No hooks and no file-system monitor, whatever the checkout's `.git/config`
 * says: the agent's commands can write there (see git-guard.ts).
 */
const SAFE_CONFIG = ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false'];

export class Git {
  private readonly env: Record<string, string>;
  private readonly networkEnv: Record<string, string>;

  constructor(private readonly options: GitOptions) {
    const base: Record<string, string> = {};
    for (const name of PASSED_THROUGH) {
      const value = options.hostEnv[name];
      if (value !== undefined) base[name] = value;
    }
    options.redactor.add(options.token);
    this.env = { ...base, GIT_TERMINAL_PROMPT: '0', GIT_EDITOR: 'true' };
    this.networkEnv = { ...this.env, ...authConfig(options.remoteUrl, options.token) };
  }

  /** Runs git; never throws for a non-zero exit (the caller decides). */
  async run(args: string[], input?: string): Promise<GitResult> {
    const { name, email } = this.options.identity;
    const identity = ['-c', `user.name=${name}`, '-c', `user.email=${email}`];
    const result = await execa('git', [...SAFE_CONFIG, ...identity, ...args], {
      cwd: this.options.cwd,
      env: NETWORK_COMMANDS.has(args[0] ?? '') ? this.networkEnv : this.env,
      extendEnv: false,
      reject: false,
      stripFinalNewline: true,
      ...(input !== undefined ? { input } : {}),
    });
    const outcome = {
      exitCode: result.exitCode ?? -1,
      stdout: String(result.stdout),
      stderr: String(result.stderr),
    };
    this.options.logger.debug('git finished', {
      args: this.options.redactor.redact(args.join(' ')),
      exitCode: outcome.exitCode,
      stderr: this.options.redactor.redact(tail(outcome.stderr, 500)),
    });
    return outcome;
  }

  /** Runs git and returns stdout; a failure becomes an Error with the redacted stderr. */
  async must(args: string[], input?: string): Promise<string> {
    const result = await this.run(args, input);
    if (result.exitCode !== 0)
      throw new Error(
        `git ${args[0]} failed (exit ${result.exitCode}): ${this.options.redactor.redact(tail(result.stderr, 800))}`,
      );
    return result.stdout;
  }
}
