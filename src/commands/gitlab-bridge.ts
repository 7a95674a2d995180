import type { Config } from '../config/options.ts';
import { createGitLabClient } from '../gitlab/gitbeaker-adapter.ts';
import type { GitLabPort, Noteable, Pipeline } from '../core/gitlab-port.ts';
import type { Logger } from '../log/logger.ts';
import { systemClock } from '../core/clock.ts';
import type { AgentPipeline, BridgeGitLab } from './bridge-port.ts';
import type { CommandTarget } from './note-rules.ts';
import type { ThreadLookup } from './resume.ts';

/** The bridge's port on top of the GitLab port (gitbeaker, with retries). */
function noteable(target: CommandTarget): Noteable {
  return { type: target.kind, iid: target.iid };
}

function toAgentPipeline(pipeline: Pipeline): AgentPipeline {
  return {
    id: pipeline.id,
    status: pipeline.status,
    ref: pipeline.ref,
    webUrl: pipeline.webUrl || undefined,
    name: pipeline.name || undefined,
  };
}

/**
 * Reads one thread through the GitLab port (for `resolveTriggerPayload` and
 * the bridge). The port has no single-thread read, so the MR's or issue's
 * threads are listed (all pages) and searched.
 */
export function threadLookup(port: GitLabPort): ThreadLookup {
  return (projectId, target, discussionId) =>
    port.getDiscussion(projectId, noteable(target), discussionId);
}

export function bridgeGitLabFromPort(port: GitLabPort): BridgeGitLab {
  return {
    async currentUser() {
      const user = await port.currentUser();
      return { id: user.id, username: user.username };
    },
    accessLevel: (projectId, userId) => port.accessLevel(projectId, userId),
    ...(port.listMembers
      ? {
          listMembers: (projectId: number, maxPages: number) =>
            port.listMembers!(projectId, maxPages),
        }
      : {}),
    awardNoteEmoji: (projectId, target, noteId, name) =>
      port.awardEmojiOnNote(projectId, noteable(target), noteId, name),
    listNoteAwardEmoji: (projectId, target, noteId) =>
      port.listNoteAwardEmoji(projectId, noteable(target), noteId),
    ...(port.awardEmojiOnTarget && port.listTargetAwardEmoji && port.removeTargetAwardEmoji
      ? {
          awardTargetEmoji: (projectId: number, target: CommandTarget, name: string) =>
            port.awardEmojiOnTarget!(projectId, noteable(target), name),
          listTargetAwardEmoji: (projectId: number, target: CommandTarget) =>
            port.listTargetAwardEmoji!(projectId, noteable(target)),
          removeTargetAwardEmoji: (projectId: number, target: CommandTarget, awardId: number) =>
            port.removeTargetAwardEmoji!(projectId, noteable(target), awardId),
        }
      : {}),
    async reply(projectId, target, discussionId, body) {
      if (discussionId)
        await port.replyToDiscussion(projectId, noteable(target), discussionId, body);
      else await port.createNote(projectId, noteable(target), body);
    },
    async internalNote(projectId, target, body) {
      await port.createNote(projectId, noteable(target), body, { internal: true });
    },
    discussion: threadLookup(port),
    listNotes: (projectId, target) => port.listNotes(projectId, noteable(target)),
    async targetWebUrl(projectId, target) {
      const item =
        target.kind === 'merge_request'
          ? await port.getMergeRequest(projectId, target.iid)
          : await port.getIssue(projectId, target.iid);
      return item.webUrl;
    },
    async triggerPipeline(projectId, ref, token, request) {
      return toAgentPipeline(
        await port.triggerPipeline(projectId, {
          token,
          ref,
          ...(request.variables ? { variables: { ...request.variables } } : {}),
          ...(request.inputs ? { inputs: { ...request.inputs } } : {}),
        }),
      );
    },
    async listTriggeredPipelines(projectId, ref) {
      return (await port.listPipelines(projectId, { ref, source: 'trigger' })).map(toAgentPipeline);
    },
    pipelineVariables: (projectId, pipelineId) => port.pipelineVariables(projectId, pipelineId),
    async cancelPipeline(projectId, pipelineId) {
      return toAgentPipeline(await port.cancelPipeline(projectId, pipelineId));
    },
  };
}

/** What `mr-agent serve` uses: the gitbeaker adapter with the system clock. */
export function createBridgeGitLab(config: Config, logger: Logger): BridgeGitLab {
  return bridgeGitLabFromPort(
    createGitLabClient({
      url: config.gitlab.url,
      token: config.gitlab.token,
      clock: systemClock,
      logger,
    }),
  );
}
