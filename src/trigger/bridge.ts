import type { Config } from '../config/options.ts';
import { describeError } from '../errors/catalog.ts';
import { ConfigError, ExternalServiceError } from '../errors/errors.ts';
import type { Logger } from '../log/logger.ts';
import type { Redactor } from '../log/redact.ts';
import { ACCESS_LEVEL } from '../gitlab/access-levels.ts';
import type { BridgeGitLab } from '../commands/bridge-port.ts';
import {
  dispatchCommand,
  dispatchPrivate,
  dispatchRefusal,
  dispatchRefusalSummary,
  dispatchReply,
  type DispatchDeps,
} from '../commands/dispatch.ts';
import { startBridgeServer, type RunningBridge } from './server.ts';
import { createPipelineStarter } from './pipeline-start.ts';
import { MembershipCache } from './membership.ts';
import { createTargetLock } from '../commands/target-lock.ts';

/**
 * How long one members listing answers for its project: a flood of comments
 * by distinct people costs one listing per project this often, at most.
 */
const MEMBERS_LISTING_TTL_MS = 30_000;
/**
 * How old a members listing must be before an author it leaves out (or names
 * below the role) causes a fresh one: someone added or promoted a moment ago
 * is heard after this long at most, and a flood of strangers costs one listing
 * per project this often at most.
 */
const MEMBERS_LISTING_REFRESH_MS = 5_000;
/** Pages of 100 members read at most; a bigger project's other authors are looked up one by one. */
const MEMBERS_LISTING_MAX_PAGES = 20;

/**
 * `mr-agent serve` without the CLI: checks the configuration, learns the
 * agent's own GitLab user, and starts the HTTP server whose accepted commands
 * go through `dispatchCommand`, and replies in threads through `dispatchReply`
 * (a reply below a paused ❓ question resumes the run), with a pipeline
 * trigger as the way to start a run.
 */
export interface BridgeSetup {
  config: Config;
  gitlab: BridgeGitLab;
  logger: Logger;
  redactor?: Redactor;
  /** The clock a members listing's age is read from (default: the wall clock). */
  now?: () => number;
}

/** Every missing setting at once, phrased as `where: what` (ConfigError style). */
export function bridgeConfigProblems(config: Config): string[] {
  const problems: string[] = [];
  const need = (value: string, key: string, env: string, what: string) => {
    if (value.trim() === '') problems.push(`${key} (${env}): ${what} is required`);
  };
  need(config.gitlab.url, 'gitlab.url', 'MR_AGENT_GITLAB_URL', 'the GitLab base URL');
  need(config.gitlab.token, 'gitlab.token', 'MR_AGENT_GITLAB_TOKEN', 'a token with api scope');
  need(
    config.serve.webhook_secret,
    'serve.webhook_secret',
    'MR_AGENT_WEBHOOK_SECRET',
    'the secret token set on the GitLab webhook',
  );
  need(
    config.serve.trigger_token,
    'serve.trigger_token',
    'MR_AGENT_TRIGGER_TOKEN',
    'a pipeline trigger token',
  );
  return problems;
}

export function assertBridgeConfig(config: Config): void {
  const problems = bridgeConfigProblems(config);
  if (problems.length === 0) return;
  throw new ConfigError('the webhook bridge is not configured', {
    problems,
    hint: 'see docs/triggers.md for the webhook setup.',
  });
}

async function whoAmI(gitlab: BridgeGitLab): Promise<{ id: number; username: string }> {
  try {
    return await gitlab.currentUser();
  } catch (error) {
    throw new ExternalServiceError(
      'gitlab',
      "cannot read the bridge token's own user (GET /user)",
      {
        cause: error,
        hint: `check MR_AGENT_GITLAB_URL and that MR_AGENT_GITLAB_TOKEN has api scope (${describeError(error).message})`,
      },
    );
  }
}

export async function startBridge(setup: BridgeSetup): Promise<RunningBridge> {
  const { config, gitlab, logger, redactor, now } = setup;
  assertBridgeConfig(config);
  const self = await whoAmI(gitlab);
  logger.info('bridge user', { userId: self.id, username: self.username });
  const prefix = config.trigger.command_prefix;
  const token = config.serve.trigger_token;
  const minAccessLevel = ACCESS_LEVEL[config.trigger.min_access_level];
  const membership = new MembershipCache(gitlab, {
    ttlMs: MEMBERS_LISTING_TTL_MS,
    refreshAfterMs: MEMBERS_LISTING_REFRESH_MS,
    minAccessLevel,
    ...(now ? { now } : {}),
    maxPages: MEMBERS_LISTING_MAX_PAGES,
    lookupConcurrency: config.serve.concurrency,
    onListingError: (projectId, error) =>
      logger.warn('members listing failed; looking authors up one by one', {
        projectId,
        error: describeError(error).message,
      }),
  });
  const deps: DispatchDeps = {
    gitlab: {
      ...gitlab,
      accessLevel: (projectId, userId) => membership.accessLevel(projectId, userId),
    },
    logger,
    redactor,
    minAccessLevel,
    prefix,
    selfId: self.id,
    language: config.notes.language,
    targetLock: createTargetLock(gitlab, {
      selfId: self.id,
      onReleaseError: (error) =>
        logger.warn('lock award not removed; it goes stale', {
          error: describeError(error).message,
        }),
    }),
    start: createPipelineStarter({
      gitlab,
      token,
      passAs: config.trigger.pass_as,
      logger,
    }),
  };
  return startBridgeServer(
    {
      port: config.serve.port,
      host: config.serve.host,
      maxBodyBytes: config.serve.max_body_bytes,
      webhookSecret: config.serve.webhook_secret,
      queueLimit: config.serve.queue_limit,
      concurrency: config.serve.concurrency,
      shutdownTimeoutMs: config.serve.shutdown_timeout_sec * 1000,
    },
    {
      logger,
      rules: { prefix, self, forks: config.trigger.forks },
      handle: (request) => dispatchCommand(deps, request),
      handleReply: (reply) => dispatchReply(deps, reply),
      handlePrivate: (request) => dispatchPrivate(deps, request),
      handleRefusal: (request, refusal) => dispatchRefusal(deps, request, refusal),
      handleRefusalSummary: (request, count) => dispatchRefusalSummary(deps, request, count),
      admission: {
        minAccessLevel,
        known: (projectId, userId) => membership.known(projectId, userId),
        resolve: (projectId, userId) => membership.accessLevel(projectId, userId),
      },
    },
  );
}
