/**
 * Who runs the commands taken from the model or the repository
 * (docs/security.md, "Commands run as another user"): `run_command`,
 * environment setup, verification and the test command.
 * The agent holds the GitLab token and the LLM key in its environment; a
 * command running as the same user reads them from `/proc/<agent>/environ`.
 */

import { t } from '../messages/catalog.ts';
import type { Language } from '../messages/language.ts';
import type { CommandRequest } from './shell-port.ts';

/** The unprivileged user commands run as, with its private home. */
export interface CommandUser {
  name: string;
  uid: number;
  gid: number;
  /** A private, empty home folder owned by the user (removed at the end). */
  home: string;
  /** The checkout the user is given (its `.git` and the state folder stay the agent's). */
  checkout: string;
  /** The folders of the checkout the user is not given (relative to it: `.git`, the state folder). */
  keep: readonly string[];
}

export type CommandIsolation =
  /**
   * Commands run as `user`: another uid cannot read the agent's environment.
   * `enter` is awaited before each command: the checkout handed over to the
   * user (what the agent wrote since included), and from then on the agent
   * reads the checkout as the user (src/shell/isolation.ts does both).
   */
  | { kind: 'separate-user'; user: CommandUser; enter(): Promise<void> }
  /**
   * Commands would run as the agent's own user. `accepted`: run them anyway
   * (`security.isolation: accept-risk`); otherwise they are refused.
   */
  | { kind: 'same-user'; reason: string; accepted: boolean };

/** Why repository commands are refused, or undefined when they may run. */
export function commandsRefused(isolation: CommandIsolation | undefined): string | undefined {
  if (isolation?.kind !== 'same-user' || isolation.accepted) return undefined;
  return `commands are not run: ${isolation.reason}, so a command could read the job's secrets (set security.isolation: accept-risk to run them anyway)`;
}

/**
 * The line the progress note shows when repository commands are refused.
 * With `accept-risk` the job log says it (a choice made in the configuration).
 */
export function isolationNotice(
  isolation: CommandIsolation | undefined,
  language: Language = 'en',
): string | undefined {
  if (isolation?.kind !== 'same-user' || isolation.accepted) return undefined;
  return t(language, 'notice.commandsRefused', { reason: isolation.reason });
}

/**
 * A command request as it runs under the isolation: as the command user
 * (after `enter`), with its private home. Throws when commands are refused;
 * callers check `commandsRefused` first and say so in their own terms.
 */
export async function isolatedRequest(
  isolation: CommandIsolation | undefined,
  request: CommandRequest,
): Promise<CommandRequest> {
  const refused = commandsRefused(isolation);
  if (refused) throw new Error(refused);
  if (isolation?.kind !== 'separate-user') return request;
  const { user } = isolation;
  await isolation.enter();
  return {
    ...request,
    env: { ...request.env, HOME: user.home, USER: user.name, LOGNAME: user.name },
    runAs: { uid: user.uid, gid: user.gid },
  };
}
