import type { Discussion, Note } from '../core/gitlab-port.ts';
import type { DiscussionComment, ReviewThreadRequest } from '../core/gathered.ts';
import { ACCESS_LEVEL } from '../gitlab/access-levels.ts';
import { parseMarker } from '../report/marker.ts';
import type { PreparedRun } from './prepare.ts';

/**
 * Most threads one `/agent address-reviews` run takes, oldest first: the
 * prompt stays readable and one commit reviewable; the rest stay open for the
 * next run.
 */
export const MAX_THREADS_PER_RUN = 20;

/**
 * The diff threads a job addresses, read from the merge request's threads
 * (the job's one listing): the thread the command was written in, when it is
 * a thread on a diff line; with `/agent address-reviews`, every unresolved
 * diff thread opened by someone who may command the agent — not the agent's
 * own threads, not those of people below the trigger role.
 */
export async function threadsToAddress(
  run: Pick<PreparedRun, 'request' | 'reads' | 'config' | 'bot'>,
  every: boolean,
): Promise<ReviewThreadRequest[] | undefined> {
  const target = run.request.target;
  if (target.kind !== 'merge_request') return undefined;
  const discussions = await run.reads.discussions({ type: 'merge_request', iid: target.iid });
  const least = ACCESS_LEVEL[run.config.trigger.min_access_level];
  const mayCommand = async (note: Note) => (await run.reads.accessLevel(note.author.id)) >= least;
  let chosen: Discussion[];
  if (every) {
    const open = discussions.filter((d) => {
      const first = diffThreadStart(d);
      return first !== undefined && first.resolved !== true && first.author.id !== run.bot.id;
    });
    const allowed = await Promise.all(open.map((d) => mayCommand(d.notes[0]!)));
    chosen = open.filter((_, i) => allowed[i]).slice(0, MAX_THREADS_PER_RUN);
  } else {
    const noteId = run.request.noteId;
    const asked = discussions.find((d) => d.notes.some((n) => n.id === noteId));
    if (!asked || !diffThreadStart(asked)) return undefined;
    chosen = [asked];
  }
  return Promise.all(
    chosen.map(async (discussion, index) => ({
      discussionId: discussion.id,
      label: `T${index + 1}`,
      ...placeOf(discussion.notes[0]!),
      notes: await commentsOf(run, discussion, mayCommand),
    })),
  );
}

/** The first note of a thread on a diff line, when the discussion is one. */
function diffThreadStart(discussion: Discussion): Note | undefined {
  const first = discussion.notes[0];
  // an internal thread is for members only: nothing the run posts or pushes may carry it
  if (discussion.individualNote || !first?.position || first.system || first.internal)
    return undefined;
  return first;
}

function placeOf(first: Note) {
  const p = first.position!;
  const start = p.lineRange?.start;
  return {
    path: p.newPath || p.oldPath,
    line: p.newLine ?? p.oldLine,
    startLine: start ? (start.newLine ?? start.oldLine) : undefined,
  };
}

/** The thread's notes as the model reads them; the agent's own replies carry no request. */
async function commentsOf(
  run: Pick<PreparedRun, 'bot'>,
  discussion: Discussion,
  mayCommand: (note: Note) => Promise<boolean>,
): Promise<DiscussionComment[]> {
  const notes = discussion.notes.filter(
    (n, i) => !n.system && !n.internal && (i === 0 || !parseMarker(n.body)),
  );
  return Promise.all(
    notes.map(async (note) => ({
      author: note.author.username,
      body: note.body,
      authorized: note.author.id === run.bot.id || (await mayCommand(note)),
      at: note.createdAt,
    })),
  );
}
