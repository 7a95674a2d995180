import type { ChangedFile, GitLabPort, Noteable } from '../core/gitlab-port.ts';
import type { DiscussionComment, RequestContext, ReviewThreadRequest } from '../core/gathered.ts';
import { parseMarker } from '../report/marker.ts';
import { cutText } from '../core/text.ts';
import { jobReads, type JobReads } from '../gitlab/job-reads.ts';
import type { CiRequest } from './request.ts';

/**
 * The request a CI run works on: the merge request or issue with
 * its labels, the merge request's changed files, and its discussion, each
 * comment marked as authorised when its author holds at least the minimum
 * role — only those count as instructions. The agent's own notes,
 * GitLab's system notes and internal notes are left out: the run's notes,
 * commits, merge requests and artifacts are public.
 */
export interface GitLabRequestInput {
  gitlab: GitLabPort;
  projectId: number;
  /** The job's reads (request, threads, roles), shared with the start checks and history. */
  reads?: JobReads;
  request: CiRequest;
  /** Numeric role a comment's author needs for the comment to count (`trigger.min_access_level`). */
  minimumAccessLevel: number;
  botUserId: number;
  /** The diff threads the run addresses (a merge request's). */
  threads?: readonly ReviewThreadRequest[] | undefined;
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
  return cutText(task.trim().split('\n')[0] ?? '', 80) || 'Task';
}

async function discussionOf(
  reads: JobReads,
  input: GitLabRequestInput,
  on: Noteable,
): Promise<DiscussionComment[]> {
  // internal notes are for project members only: nothing the run writes may carry them
  const notes = (await reads.notes(on)).filter(
    (n) => !n.system && !n.internal && n.author.id !== input.botUserId && !parseMarker(n.body),
  );
  const levels = await Promise.all(notes.map((note) => reads.accessLevel(note.author.id)));
  return notes.map((note, i) => ({
    author: note.author.username,
    body: note.body,
    authorized: levels[i]! >= input.minimumAccessLevel,
    at: note.createdAt,
  }));
}

export async function loadGitLabRequest(input: GitLabRequestInput): Promise<RequestContext> {
  const { request, gitlab, projectId } = input;
  const reads = input.reads ?? jobReads(gitlab, projectId);
  const target = request.target;
  if (target.kind === 'merge_request') {
    const on: Noteable = { type: 'merge_request', iid: target.iid };
    const [mr, changes, discussion] = await Promise.all([
      reads.mergeRequest(target.iid),
      gitlab.listMergeRequestChanges(projectId, target.iid),
      discussionOf(reads, input, on),
    ]);
    return {
      source: 'merge_request',
      reference: `!${mr.iid}`,
      title: mr.title,
      body: mr.description,
      labels: mr.labels,
      diffSummary: diffSummary(changes),
      discussion,
      ...(input.threads && input.threads.length > 0 ? { threads: [...input.threads] } : {}),
    };
  }
  if (target.kind === 'issue') {
    const on: Noteable = { type: 'issue', iid: target.iid };
    const [issue, discussion] = await Promise.all([
      reads.issue(target.iid),
      discussionOf(reads, input, on),
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
