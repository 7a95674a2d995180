/**
 * Where answers to the ❓ note come from: the replies in the note's
 * thread, from people allowed to instruct the agent. A small port so the
 * clarification flow is tested with an in-memory fake; in GitLab it runs on
 * the GitLab port (`gitlabAnswers`).
 */
import type { Discussion, GitLabPort, Noteable, ProjectRef } from '../../core/gitlab-port.ts';
import { parseMarker } from '../../report/marker.ts';
import { isBotUser } from '../../core/bot-users.ts';

export interface ThreadReply {
  id: string;
  author: { id: number; username: string; bot?: boolean };
  body: string;
  /** ISO time. */
  createdAt: string;
}

export interface AnswerSource {
  /** Replies below note `noteId` in its thread, oldest first (the note itself, system and internal notes left out). */
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
  /**
   * The job's reads (`JobReads`): its thread listing serves the first look
   * when it holds the note (a resumed run reads the answers it was started
   * by), and each author's role is looked up once per job. Later looks (a
   * wait for answers) list the threads again.
   */
  reads?: {
    discussions(on: Noteable): Promise<Discussion[]>;
    accessLevel(userId: number): Promise<number>;
  };
}

/** The thread holding `noteId`, from the job's listing on the first look, else listed now. */
function threadLister(gitlab: GitLabPort, options: GitLabAnswersOptions) {
  let firstLook = options.reads !== undefined;
  return async (noteId: string): Promise<Discussion | undefined> => {
    const holds = (d: Discussion) => d.notes.some((n) => String(n.id) === noteId);
    if (firstLook && options.reads) {
      firstLook = false;
      const thread = (await options.reads.discussions(options.on)).find(holds);
      if (thread) return thread;
    }
    return (await gitlab.listDiscussions(options.project, options.on)).find(holds);
  };
}

/** Answers on a GitLab MR/issue: discussions for the thread, the members API for the role. */
export function gitlabAnswers(gitlab: GitLabPort, options: GitLabAnswersOptions): AnswerSource {
  const levels = new Map<number, Promise<number>>();
  const threadOf = threadLister(gitlab, options);
  const levelOf = (userId: number) =>
    options.reads?.accessLevel(userId) ?? gitlab.accessLevel(options.project, userId);
  return {
    async replies(noteId) {
      const thread = await threadOf(noteId);
      if (!thread) return [];
      const index = thread.notes.findIndex((n) => String(n.id) === noteId);
      return thread.notes
        .slice(index + 1)
        .filter((n) => !n.system && !n.internal)
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
        level = levelOf(reply.author.id);
        levels.set(reply.author.id, level);
        level.catch(() => levels.delete(reply.author.id));
      }
      return (await level) >= options.minAccessLevel;
    },
  };
}
