/**
 * Where answers to the ❓ note come from (SPEC F4): the replies in the note's
 * thread, from people allowed to instruct the agent. A small port so the
 * clarification flow is tested with an in-memory fake; in GitLab it runs on
 * the GitLab port (`gitlabAnswers`).
 */
import type { GitLabPort, Noteable, ProjectRef } from '../../core/gitlab-port.ts';
import { parseMarker } from '../../core/marker.ts';
import { isBotUser } from '../../gitlab/bot-users.ts';

export interface ThreadReply {
  id: string;
  author: { id: number; username: string; bot?: boolean };
  body: string;
  /** ISO time. */
  createdAt: string;
}

export interface AnswerSource {
  /** Replies below note `noteId` in its thread, oldest first (the note itself and system notes left out). */
  replies(noteId: string): Promise<ThreadReply[]>;
  /** Whether the author may answer: a person (not a bot, not the agent) with enough access. */
  mayAnswer(reply: ThreadReply): Promise<boolean>;
}

/** The authorised replies, oldest first. */
export async function authorisedReplies(
  source: AnswerSource,
  noteId: string,
): Promise<ThreadReply[]> {
  const replies = await source.replies(noteId);
  const allowed: ThreadReply[] = [];
  for (const reply of replies) {
    if (parseMarker(reply.body) || reply.body.trim() === '') continue;
    if (await source.mayAnswer(reply)) allowed.push(reply);
  }
  return allowed;
}

export interface GitLabAnswersOptions {
  project: ProjectRef;
  on: Noteable;
  /** `trigger.min_access_level` as a number (GitLab role). */
  minAccessLevel: number;
  /** The agent's own user: its notes are never answers. */
  selfId?: number;
}

/** Answers on a GitLab MR/issue: discussions for the thread, the members API for the role. */
export function gitlabAnswers(gitlab: GitLabPort, options: GitLabAnswersOptions): AnswerSource {
  const levels = new Map<number, Promise<number>>();
  return {
    async replies(noteId) {
      const discussions = await gitlab.listDiscussions(options.project, options.on);
      const thread = discussions.find((d) => d.notes.some((n) => String(n.id) === noteId));
      if (!thread) return [];
      const index = thread.notes.findIndex((n) => String(n.id) === noteId);
      return thread.notes
        .slice(index + 1)
        .filter((n) => !n.system)
        .map((n) => ({
          id: String(n.id),
          author: { id: n.author.id, username: n.author.username, bot: n.author.bot },
          body: n.body,
          createdAt: n.createdAt,
        }));
    },
    async mayAnswer(reply) {
      if (options.selfId !== undefined && reply.author.id === options.selfId) return false;
      if (isBotUser({ username: reply.author.username, bot: reply.author.bot ?? null }))
        return false;
      let level = levels.get(reply.author.id);
      if (!level) {
        level = gitlab.accessLevel(options.project, reply.author.id);
        levels.set(reply.author.id, level);
        level.catch(() => levels.delete(reply.author.id));
      }
      return (await level) >= options.minAccessLevel;
    },
  };
}
