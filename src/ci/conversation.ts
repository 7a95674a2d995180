import { describeError } from '../errors/catalog.ts';
import type { Clock } from '../core/clock.ts';
import type { Checkpoint, ConversationPort, HumanComment } from '../core/conversation.ts';
import type { GitLabPort, Note, Noteable, ProjectRef } from '../core/gitlab-port.ts';
import { parseMarker } from '../report/marker.ts';
import type { Logger } from '../log/logger.ts';
import type { Redactor } from '../log/redact.ts';
import { isBotUser } from '../core/bot-users.ts';
import type { parseAgentCommand } from '../commands/parse.ts';
import { finishReply } from '../commands/replies.ts';
import { t } from '../messages/catalog.ts';
import {
  commentLanguage,
  detectLanguage,
  type Language,
  type LanguageSetting,
} from '../messages/language.ts';

/**
 * The run's ear on GitLab: at a checkpoint it reads the merge request's or
 * issue's notes newest first, one page at a time, only down to the last note
 * it has seen, and at most once every `minIntervalMs` (before delivery
 * always) — so a checkpoint
 * without new comments costs one read and none is re-listed. Of the new
 * notes only people count: system notes, internal notes, the agent's own
 * notes (its user, or any note carrying the agent's marker), bots, other
 * tools' slash commands, the `/agent` verbs the bridge answers itself
 * (stop, pause, status …) and anyone below `trigger.min_access_level` are
 * left out. A new `/agent <instruction>` counts with its instruction as the
 * text. The thread of each comment is found in one listing of the threads,
 * made only when there is something to answer.
 */
export interface GitLabConversationOptions {
  gitlab: GitLabPort;
  project: ProjectRef;
  on: Noteable;
  /** The agent's own user. */
  selfId: number;
  /** The least numeric access level that may steer (`trigger.min_access_level`). */
  minAccessLevel: number;
  accessLevel(userId: number): Promise<number>;
  /**
   * The newest note the run already knows (from the job's listing of the
   * threads), asked at the first read so composing the run reads nothing.
   */
  seenUpTo(): Promise<number>;
  /** `trigger.command_prefix`. */
  prefix: string;
  clock: Clock;
  minIntervalMs?: number;
  redactor: Redactor;
  logger: Logger;
  /** The run's pipeline: the bridge's "joined" replies name it. */
  pipelineId?: string | undefined;
  /**
   * Runs the closing read under the lock the bridge holds while it decides
   * "joined" (src/commands/target-lock.ts), so every "joined" reply given
   * before the final note is seen, and none is given after it.
   */
  underLock?: <T>(work: () => Promise<T>) => Promise<T | undefined>;
  /**
   * `notes.language` and the language decided for the run: a late comment
   * is answered in its own language (the run's when it has no words), or
   * the fixed one. Absent: the comment's own.
   */
  language?: { setting: LanguageSetting; run: Language } | undefined;
}

/** The least time between two looks at the notes. */
export const CONVERSATION_READ_INTERVAL_MS = 5_000;
const PER_PAGE = 20;
/** Pages read at one checkpoint at most: 100 new notes. */
const MAX_PAGES = 5;

/** What a note says to the run, or undefined when it is not a person steering it. */
export function steeringText(
  note: Note,
  selfId: number,
  prefix: string,
  parse: typeof parseAgentCommand,
): string | undefined {
  if (note.system || note.internal === true) return undefined;
  if (note.author.id === selfId || isBotUser(note.author)) return undefined;
  if (parseMarker(note.body)) return undefined;
  const body = note.body.trim();
  if (body === '') return undefined;
  const command = parse(body, prefix);
  if (command.isCommand) {
    // the bridge answers the other verbs itself; an instruction joins the run
    return command.command === 'run' && command.instruction !== ''
      ? command.instruction
      : undefined;
  }
  // a quick action or another tool's command is not said to the agent
  if (body.startsWith('/')) return undefined;
  return body;
}

export function gitlabConversation(options: GitLabConversationOptions): ConversationPort {
  const interval = options.minIntervalMs ?? CONVERSATION_READ_INTERVAL_MS;
  let seen: number | undefined;
  let lastRead: number | undefined;
  const { gitlab, project, on, logger, clock } = options;

  async function newNotes(): Promise<Note[]> {
    seen ??= await options.seenUpTo();
    const fresh: Note[] = [];
    for (let page = 1; page <= MAX_PAGES; page++) {
      const notes = await gitlab.listNewestNotes(project, on, { page, perPage: PER_PAGE });
      const newer = notes.filter((n) => n.id > seen!);
      fresh.push(...newer);
      if (notes.length < PER_PAGE || newer.length < notes.length) break;
    }
    return fresh.sort((a, b) => a.id - b.id);
  }

  async function counted(notes: Note[]): Promise<Array<{ note: Note; text: string }>> {
    const kept: Array<{ note: Note; text: string }> = [];
    // the comment parser (markdown-it) loads when there is something to hear, not with the job
    const { parseAgentCommand: parse } = await import('../commands/parse.ts');
    for (const note of notes) {
      const text = steeringText(note, options.selfId, options.prefix, parse);
      if (text === undefined) continue;
      if ((await options.accessLevel(note.author.id)) < options.minAccessLevel) {
        logger.info('a comment from someone who may not steer the run is left out', {
          noteId: note.id,
          userId: note.author.id,
        });
        continue;
      }
      kept.push({ note, text });
    }
    return kept;
  }

  async function withThreads(kept: Array<{ note: Note; text: string }>): Promise<HumanComment[]> {
    if (kept.length === 0) return [];
    const threads = await gitlab.listDiscussions(project, on);
    const threadOf = new Map<number, string>();
    for (const thread of threads) for (const n of thread.notes) threadOf.set(n.id, thread.id);
    return kept.flatMap(({ note, text }) => {
      const discussionId = threadOf.get(note.id);
      if (!discussionId) return [];
      return [
        {
          id: note.id,
          discussionId,
          author: { id: note.author.id, username: note.author.username },
          createdAt: note.createdAt,
          text,
        },
      ];
    });
  }

  /** The bridge told this instruction "joined" for this run (its reply's marker names the pipeline). */
  function joinedThisRun(thread: { notes: Note[] }, noteId: number): boolean {
    return thread.notes.some((n) => {
      if (n.id <= noteId || n.author.id !== options.selfId) return false;
      const marker = parseMarker(n.body);
      return (
        marker?.kind === 'reply' &&
        marker.state === 'joined' &&
        marker.pipeline !== undefined &&
        marker.pipeline === options.pipelineId
      );
    });
  }

  /**
   * The last read, after the final note: a comment made since the last read
   * is answered that the run has ended — an `/agent` instruction only when
   * the bridge told it "joined" for this run (any other the bridge answers
   * itself, by starting a follow-up).
   */
  async function closingRead(): Promise<number> {
    const notes = await newNotes();
    if (notes.length === 0) return 0;
    seen = Math.max(seen ?? 0, ...notes.map((n) => n.id));
    const kept = await counted(notes);
    if (kept.length === 0) return 0;
    const threads = await gitlab.listDiscussions(project, on);
    const { parseAgentCommand: parse } = await import('../commands/parse.ts');
    let answered = 0;
    for (const { note, text } of kept) {
      const thread = threads.find((d) => d.notes.some((n) => n.id === note.id));
      if (!thread) continue;
      if (parse(note.body.trim(), options.prefix).isCommand) {
        if (!joinedThisRun(thread, note.id)) continue;
      }
      const language = options.language
        ? commentLanguage(options.language.setting, text, options.language.run)
        : detectLanguage(text);
      const reply = t(language, 'conversation.runEnded');
      await answerIn(note.id, thread.id, reply);
      answered++;
    }
    if (answered > 0) logger.info('comments made too late for the run answered', { answered });
    return answered;
  }

  async function answerIn(noteId: number, discussionId: string, text: string): Promise<void> {
    try {
      await gitlab.replyToDiscussion(
        project,
        on,
        discussionId,
        finishReply(text, options.redactor),
      );
    } catch (error) {
      logger.warn('could not answer a comment', {
        noteId,
        error: describeError(error).message,
      });
    }
  }

  return {
    async close() {
      try {
        if (options.underLock) {
          // without the lock the read still answers all but a "joined" given this very moment
          const answered = await options.underLock(closingRead).catch((error: unknown) => {
            logger.warn('could not take the lock for the last read; reading without it', {
              error: describeError(error).message,
            });
            return undefined;
          });
          if (answered !== undefined) return answered;
        }
        return await closingRead();
      } catch (error) {
        logger.warn('could not read the comments made at the end of the run', {
          error: describeError(error).message,
        });
        return 0;
      }
    },
    async read(checkpoint: Checkpoint) {
      const now = clock.now();
      // before delivery the last word is always heard: "stop before you push" must not wait out the interval
      if (checkpoint !== 'delivery' && lastRead !== undefined && now - lastRead < interval)
        return [];
      lastRead = now;
      try {
        const notes = await newNotes();
        if (notes.length === 0) return [];
        seen = Math.max(seen ?? 0, ...notes.map((n) => n.id));
        const comments = await withThreads(await counted(notes));
        if (comments.length > 0)
          logger.info('comments heard', { checkpoint, count: comments.length });
        return comments;
      } catch (error) {
        logger.warn('could not read new comments; going on', {
          checkpoint,
          error: describeError(error).message,
        });
        return [];
      }
    },
    answer: (comment, text) => answerIn(comment.id, comment.discussionId, text),
  };
}
