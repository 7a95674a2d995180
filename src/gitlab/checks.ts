/**
 * In-job checks before a run starts (docs/security.md, "Who may command the
 * agent"): the token has the scope the run needs, the triggering user (not
 * the trigger token's owner) has the
 * required role, and the agent's configuration comes from the default branch
 * — so a merge request cannot change how the agent treats it.
 */
import { CONFIG_FILE } from '../config/load.ts';
import { ConfigError, ExternalServiceError, UsageError } from '../errors/errors.ts';
import { ACCESS_LEVEL, accessLevelName } from './access-levels.ts';
import type { MinAccessLevel } from '../config/options.ts';
import {
  type GitLabPort,
  type GitLabUser,
  type Project,
  type ProjectRef,
  type TokenInfo,
} from '../core/gitlab-port.ts';

/** Scopes that let the token post notes, open merge requests and push over HTTPS. */
const WRITE_SCOPE = 'api';

function insufficientScope(error: unknown): boolean {
  return (
    error instanceof ExternalServiceError &&
    error.status === 403 &&
    /insufficient_scope|higher privileges/i.test(error.message)
  );
}

function scopeError(have: readonly string[] | undefined): ConfigError {
  const held = have === undefined ? '' : ` (it has: ${have.join(', ') || 'none'})`;
  return new ConfigError(`the GitLab token lacks the \`${WRITE_SCOPE}\` scope${held}`, {
    where: 'MR_AGENT_GITLAB_TOKEN',
    hint:
      'Create a project, group or personal access token with the `api` scope (CI_JOB_TOKEN cannot ' +
      'write notes) and store it as the masked CI/CD variable MR_AGENT_GITLAB_TOKEN.',
  });
}

/**
 * Refuses to start when the token cannot do the run's work. Returns the token's
 * details, or undefined when GitLab cannot tell (not a personal/project/group
 * access token, or an instance without `/personal_access_tokens/self`).
 */
export async function checkTokenScopes(gitlab: GitLabPort): Promise<TokenInfo | undefined> {
  let info: TokenInfo;
  try {
    info = await gitlab.tokenInfo();
  } catch (error) {
    if (insufficientScope(error)) throw scopeError(undefined);
    if (error instanceof ExternalServiceError && [401, 403, 404].includes(error.status ?? 0))
      return undefined;
    throw error;
  }
  if (!info.active)
    throw new ConfigError('the GitLab token is revoked or expired', {
      where: 'MR_AGENT_GITLAB_TOKEN',
      hint: 'Rotate the token and update the CI/CD variable.',
    });
  if (!info.scopes.includes(WRITE_SCOPE)) throw scopeError(info.scopes);
  return info;
}

/** The bot user the token belongs to (its notes are found again by this id). */
export async function botUser(gitlab: GitLabPort): Promise<GitLabUser> {
  try {
    return await gitlab.currentUser();
  } catch (error) {
    if (insufficientScope(error)) throw scopeError(undefined);
    throw error;
  }
}

/** M4: the person whose comment started the run must hold at least `minimum` on the project. */
export async function checkTriggeringUser(
  gitlab: GitLabPort,
  project: ProjectRef,
  userId: number,
  minimum: MinAccessLevel,
  levelOf: (userId: number) => Promise<number> = (id) => gitlab.accessLevel(project, id),
): Promise<number> {
  const level = await levelOf(userId);
  const needed = ACCESS_LEVEL[minimum];
  if (level < needed) {
    const has = level === 0 ? 'is not a member' : `has the ${accessLevelName(level)} role`;
    throw new UsageError(
      `user ${userId} ${has} on project ${project}; running mr-agent needs at least ${minimum}`,
      {
        where: 'MR_AGENT_TRIGGERED_BY',
        hint: 'Ask a project member with enough rights to run the command, or lower trigger.min_access_level.',
      },
    );
  }
  return level;
}

/** M4: `.mr-agent.yml` as it is on the project's default branch (for `ConfigStages.final`), or null. */
export async function readRepositoryConfig(
  gitlab: GitLabPort,
  project: Pick<Project, 'id' | 'defaultBranch'>,
): Promise<{ text: string; location: string } | null> {
  const text = await gitlab.readFile(project.id, CONFIG_FILE, project.defaultBranch);
  if (text === undefined) return null;
  return { text, location: `${CONFIG_FILE} (default branch ${project.defaultBranch})` };
}

export interface StartCheckResult {
  bot: GitLabUser;
  project: Project;
  token: TokenInfo | undefined;
  /** The triggering user's role number, when a user was named. */
  triggeringUserLevel: number | undefined;
  configFile: { text: string; location: string } | null;
}

export interface StartCheckInput {
  gitlab: GitLabPort;
  project: ProjectRef;
  triggeredBy?: number | undefined;
  /** Further users who must hold the role too (the pipeline's user, M4). */
  alsoCheck?: readonly number[];
  minimumAccessLevel: MinAccessLevel;
  /** A role lookup shared with the rest of the job (`JobReads.accessLevel`). */
  accessLevel?: (userId: number) => Promise<number>;
  /**
   * The default branch as the job was told it (`CI_DEFAULT_BRANCH`): the file
   * is read from it while the project is fetched, and read again from the
   * project's own default branch when the two differ (a pipeline variable
   * cannot pick the configuration).
   */
  defaultBranchHint?: string | undefined;
}

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

function settle<T>(promise: Promise<T>): Promise<Settled<T>> {
  return promise.then(
    (value) => ({ ok: true, value }),
    (error: unknown) => ({ ok: false, error }),
  );
}

function valueOf<T>(result: Settled<T>): T {
  if (!result.ok) throw result.error;
  return result.value;
}

async function configFileOf(
  input: StartCheckInput,
  project: Promise<Project>,
): Promise<StartCheckResult['configFile']> {
  const hint = input.defaultBranchHint;
  const early =
    hint && typeof input.project === 'number'
      ? readRepositoryConfig(input.gitlab, { id: input.project, defaultBranch: hint })
      : undefined;
  early?.catch(() => undefined);
  const known = await project;
  if (early && known.defaultBranch === hint && known.id === input.project) return early;
  return readRepositoryConfig(input.gitlab, known);
}

/**
 * All start checks, their reads made at once; the first failure in check
 * order (token, bot user, project, each user's role, configuration file)
 * stops the run with its clear message.
 */
export async function runStartChecks(input: StartCheckInput): Promise<StartCheckResult> {
  const { gitlab } = input;
  const levelOf = input.accessLevel ?? ((id: number) => gitlab.accessLevel(input.project, id));
  const users = [
    ...(input.triggeredBy === undefined ? [] : [input.triggeredBy]),
    ...(input.alsoCheck ?? []).filter((id) => id !== input.triggeredBy),
  ];
  const project = gitlab.getProject(input.project);
  const [token, bot, projectResult, configFile, ...levels] = await Promise.all([
    settle(checkTokenScopes(gitlab)),
    settle(botUser(gitlab)),
    settle(project),
    settle(configFileOf(input, project)),
    ...users.map((id) =>
      settle(checkTriggeringUser(gitlab, input.project, id, input.minimumAccessLevel, levelOf)),
    ),
  ]);
  const result = {
    token: valueOf(token),
    bot: valueOf(bot),
    project: valueOf(projectResult),
  };
  const userLevels = levels.map(valueOf);
  return {
    ...result,
    triggeringUserLevel: input.triggeredBy === undefined ? undefined : userLevels[0],
    configFile: valueOf(configFile),
  };
}
