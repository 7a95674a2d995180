/**
 * Git for delivery, through the run's checkout port (src/shell/git.ts behind
 * it: no ambient configuration, no hooks, no credential helpers, the push
 * token only as an HTTP header for the remote). The `file` transport is
 * allowed only when the remote delivery pushes to is itself local (the
 * stand-ins).
 */
import {
  isLocalRemote,
  type CheckoutPort,
  type GitResult,
  type GitRunner,
} from '../../core/checkout-port.ts';
import type { Logger } from '../../log/logger.ts';
import type { Redactor } from '../../log/redact.ts';
import type { Shell } from '../../core/shell-port.ts';

export type { GitResult };
export type Git = GitRunner;

export interface GitOptions {
  /** The shell git runs through (the run's). */
  shell: Shell;
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

/** The git delivery commits, rebases and pushes with. */
export function deliveryGit(checkout: CheckoutPort, options: GitOptions): Git {
  return checkout.git({
    ...options,
    allowFileProtocol: options.remoteUrl !== undefined && isLocalRemote(options.remoteUrl),
  });
}
