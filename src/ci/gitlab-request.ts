import type { ChangedFile, GitLabPort, Note, Noteable } from '../gitlab/port.ts';
import { parseMarker } from '../report/marker.ts';
import type { CiRequest } from './request.ts';

/**
 * The request a CI run works on (SPEC C1, C4): the merge request or issue with
 * its labels, the merge request's changed files, and its discussion, each
 * comment marked as authorised when its author holds at least the minimum
 * role — only those count as instructions. The agent's own notes and
 * GitLab's system notes are left out. The shape is the run's
 * `RequestContext` (src/phases/gather/types.ts).
 */
export interface CiDiscussionComment {
  author: string;
  body: string;
  authorized: boolean;
  at?: string;
}

export interface CiRequestContext {
  source: 'task' | 'merge_request' | 'issue';
  reference?: string;
  title: string;
  body: string;
  labels: string[];
  diffSummary?: string;
  discussion: CiDiscussionComment[];
}

export interface GitLabRequestInput {
  gitlab: GitLabPort;
  projectId: number;
  request: CiRequest;
  /** Numeric role a comment's author needs for the comment to count (`trigger.min_access_level`). */
  minimumAccessLevel: number;
  botUserId: number;
}

const MAX_DIFF_LINES = 200;

function diffSummary(files: readonly ChangedFile[]): string {
  const lines = files.slice(0, MAX_DIFF_LINES).map((f) => {
    const name = f.status === 'renamed' ? `${f.oldPath} → ${f.newPath}` : f.newPath;
    return `${f.status} ${name} (+${f.additions} −${f.deletions})`;
  });
  if (files.length > MAX_DIFF_LINES) lines.push(`… ${files.length - MAX_DIFF_LINES} more files`);
  return lines.join('\n');
}

/** The first line of a free-text task, as a title. */
export function titleOf(task: string): string {
  const first = task.trim().split('\n')[0] ?? '';
  return first.length > 80 ? `${first.slice(0, 79)}…` : first || 'Task';
}

async function discussionOf(
  input: GitLabRequestInput,
  on: Noteable,
): Promise<CiDiscussionComment[]> {
  const discussions = await input.gitlab.listDiscussions(input.projectId, on);
  const levels = new Map<number, Promise<number>>();
  const levelOf = (userId: number) => {
    if (!levels.has(userId)) levels.set(userId, input.gitlab.accessLevel(input.projectId, userId));
    return levels.get(userId)!;
  };
  const notes: Note[] = discussions
    .flatMap((d) => d.notes)
    .filter((n) => !n.system && n.author.id !== input.botUserId && !parseMarker(n.body))
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  const comments: CiDiscussionComment[] = [];
  for (const note of notes) {
    const authorized = (await levelOf(note.author.id)) >= input.minimumAccessLevel;
    comments.push({
      author: note.author.username,
      body: note.body,
      authorized,
      at: note.createdAt,
    });
  }
  return comments;
}

export async function loadGitLabRequest(input: GitLabRequestInput): Promise<CiRequestContext> {
  const { request, gitlab, projectId } = input;
  const target = request.target;
  if (target.kind === 'merge_request') {
    const on: Noteable = { type: 'merge_request', iid: target.iid };
    const [mr, changes, discussion] = await Promise.all([
      gitlab.getMergeRequest(projectId, target.iid),
      gitlab.listMergeRequestChanges(projectId, target.iid),
      discussionOf(input, on),
    ]);
    return {
      source: 'merge_request',
      reference: `!${mr.iid}`,
      title: mr.title,
      body: mr.description,
      labels: mr.labels,
      diffSummary: diffSummary(changes),
      discussion,
    };
  }
  if (target.kind === 'issue') {
    const on: Noteable = { type: 'issue', iid: target.iid };
    const [issue, discussion] = await Promise.all([
      gitlab.getIssue(projectId, target.iid),
      discussionOf(input, on),
    ]);
    return {
      source: 'issue',
      reference: `#${issue.iid}`,
      title: issue.title,
      body: issue.description,
      labels: issue.labels,
      discussion,
    };
  }
  return {
    source: 'task',
    title: titleOf(request.task),
    body: request.task,
    labels: [],
    discussion: [],
  };
}
