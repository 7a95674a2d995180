/**
 * How phases reach the checkout: git with no ambient configuration, and the
 * checkout's files read as the command user once its commands may have run
 * there. The composition passes the adapter in (src/shell/checkout-port.ts:
 * src/shell/git.ts and src/shell/checkout-reader.ts); docs/security.md says
 * why both are done this way.
 */
import type { Logger } from '../log/logger.ts';
import type { Redactor } from '../log/redact.ts';
import type { Shell } from './shell-port.ts';

export interface GitResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface GitOptions {
  cwd: string;
  /** The host environment; git keeps only `gitHostEnv(hostEnv)`. */
  hostEnv: Readonly<Record<string, string | undefined>>;
  /** The shell git runs through: the run's, or the process's for what runs before a run. */
  shell: Shell;
  redactor?: Redactor;
  logger?: Logger;
  /** Token for HTTPS remotes (sent as `Authorization: Basic` for that remote only). */
  token?: string | undefined;
  /** User name of the Basic header: `oauth2` for access tokens, `gitlab-ci-token` for the job token. */
  tokenUser?: string;
  /** The remote URL the token is for. */
  remoteUrl?: string | undefined;
  /** Author and committer of commits and rebases. */
  identity?: { name: string; email: string };
  /**
   * Also allow the `file` transport (local paths, `file://`). Only for a
   * remote that is itself local: the stand-ins and local clones.
   */
  allowFileProtocol?: boolean;
  timeoutMs?: number;
  /**
   * Run on the git directory `cwd` alone, as a bare repository: no work
   * tree, so git reads none of the checkout's files (no `.gitattributes`,
   * no ignore files) and writes none.
   */
  gitDirOnly?: boolean;
  /** Output kept per call (default 64 MiB); beyond it git is stopped. */
  maxOutputBytes?: number;
  signal?: AbortSignal;
}

/** Git over the shell it was given; the adapter is `Git` of src/shell/git.ts. */
export interface GitRunner {
  /** Runs git; never throws for a non-zero exit (the caller decides). */
  run(
    args: readonly string[],
    input?: string,
    env?: Readonly<Record<string, string>>,
  ): Promise<GitResult>;
  /** Runs git and returns stdout; a failure becomes an Error with the redacted stderr. */
  must(
    args: readonly string[],
    input?: string,
    env?: Readonly<Record<string, string>>,
  ): Promise<string>;
  /** The same git on the repository's git directory alone, never reading or writing the checkout's files. */
  onGitDirOnly(): Promise<GitRunner>;
}

/** What one path of the checkout holds, as read. */
export type CheckoutEntry =
  /** Nothing there (or a folder on its path is gone). */
  | { kind: 'missing' }
  | { kind: 'folder' }
  /** A symbolic link, never followed: its target as bytes. */
  | { kind: 'link'; target: Buffer }
  /** A regular file: its first `cap` bytes, its whole size. */
  | { kind: 'file'; executable: boolean; size: number; content: Buffer }
  /** Not read: a folder on its path is a link, not a regular file, unreadable. */
  | { kind: 'skip'; why: string };

export interface ReadCheckoutOptions {
  /** Bytes read per file at most (default: all). */
  cap?: number;
  /** The shell the reader process runs through (default: execa). */
  shell?: Shell;
}

/** Reads paths of the checkout (relative to `root`, its real path), one answer per path, in order. */
export type CheckoutReader = (
  root: string,
  rels: readonly string[],
  options?: ReadCheckoutOptions,
) => Promise<CheckoutEntry[]>;

/** The checkout's port: a git for given options, and the reader of its files. */
export interface CheckoutPort {
  git(options: GitOptions): GitRunner;
  read: CheckoutReader;
}

/** Whether a remote is on this machine (a path or a `file://` URL). */
export function isLocalRemote(url: string): boolean {
  return url.startsWith('file://') || url.startsWith('/') || url.startsWith('./');
}
