/**
 * How each GitLab write is looked for when its answer was lost
 * (checked-write.ts). Only what the token's own user wrote counts: a
 * comment somebody else posted with the same text is not taken for ours.
 */
import type {
  AwardResult,
  Discussion,
  GitLabPort,
  MergeRequest,
  NewMergeRequest,
  Note,
  Noteable,
  Pipeline,
  ProjectRef,
  TriggerRequest,
} from '../core/gitlab-port.ts';

type Reads = Pick<
  GitLabPort,
  | 'currentUser'
  | 'listNotes'
  | 'getDiscussion'
  | 'listDiscussions'
  | 'listNoteAwardEmoji'
  | 'findMergeRequests'
  | 'listPipelines'
  | 'pipelineVariables'
>;

/** How many of the newest triggered pipelines are compared with a lost trigger. */
const RECENT_PIPELINES = 5;

const sameText = (a: string, b: string) => a.trim() === b.trim();

/** The newest note of ours with exactly this body (marker included). */
export async function landedNote(
  gitlab: Reads,
  project: ProjectRef,
  on: Noteable,
  body: string,
): Promise<Note | undefined> {
  const self = await gitlab.currentUser();
  const notes = await gitlab.listNotes(project, on);
  return notes.filter((n) => n.author.id === self.id && sameText(n.body, body)).at(-1);
}

/** The newest thread we started with exactly this first note. */
export async function landedDiscussion(
  gitlab: Reads,
  project: ProjectRef,
  on: Noteable,
  body: string,
): Promise<Discussion | undefined> {
  const self = await gitlab.currentUser();
  const threads = await gitlab.listDiscussions(project, on);
  return threads
    .filter((d) => d.notes[0]?.author.id === self.id && sameText(d.notes[0].body, body))
    .at(-1);
}

/** Our reply with this body in the thread. */
export async function landedReply(
  gitlab: Reads,
  project: ProjectRef,
  on: Noteable,
  discussionId: string,
  body: string,
): Promise<Note | undefined> {
  const self = await gitlab.currentUser();
  const thread = await gitlab.getDiscussion(project, on, discussionId);
  return thread?.notes.filter((n) => n.author.id === self.id && sameText(n.body, body)).at(-1);
}

/** Our award of this name on the note (GitLab keeps one per user and name). */
export async function landedAward(
  gitlab: Reads,
  project: ProjectRef,
  on: Noteable,
  noteId: number,
  name: string,
): Promise<AwardResult | undefined> {
  const self = await gitlab.currentUser();
  const awards = await gitlab.listNoteAwardEmoji(project, on, noteId);
  const award = awards.find((a) => a.user.id === self.id && a.name === name);
  return award ? { awarded: true, award } : undefined;
}

/** The open merge request between the same two branches (GitLab allows only one). */
export async function landedMergeRequest(
  gitlab: Reads,
  project: ProjectRef,
  request: NewMergeRequest,
): Promise<MergeRequest | undefined> {
  const open = await gitlab.findMergeRequests(project, {
    sourceBranch: request.sourceBranch,
    state: 'opened',
  });
  return open.find((m) => m.targetBranch === request.targetBranch);
}

const normalised = (vars: Record<string, string>) =>
  JSON.stringify(
    Object.entries(vars)
      .map(([k, v]) => [k, v.replace(/\r\n/g, '\n')])
      .sort(([a], [b]) => a!.localeCompare(b!)),
  );

/** A recent triggered pipeline on the ref with exactly these variables. */
export async function landedTrigger(
  gitlab: Reads,
  project: ProjectRef,
  request: TriggerRequest,
): Promise<Pipeline | undefined> {
  const wanted = normalised(request.variables ?? {});
  const recent = await gitlab.listPipelines(project, { ref: request.ref, source: 'trigger' });
  for (const pipeline of recent.slice(0, RECENT_PIPELINES)) {
    const variables = await gitlab.pipelineVariables(project, pipeline.id);
    if (normalised(variables) === wanted) return pipeline;
  }
  return undefined;
}
