/**
 * Builds Comments webhook bodies shaped like GitLab's (webhook_events.md,
 * "Comment on a merge request" / "Comment on an issue"), including fields the
 * bridge does not read, to prove the lenient schema drops them.
 */
import type {
  GitLabModel,
  IssueRec,
  MergeRequestRec,
  NoteRec,
  Scenario,
  UserRec,
} from '../../src/testkit/gitlab-server/index.ts';

export interface NoteHookInput {
  note: string;
  noteId?: number;
  user?: { id: number; username: string; bot?: boolean };
  projectId?: number;
  defaultBranch?: string;
  on?: 'merge_request' | 'issue' | 'commit';
  iid?: number;
  sourceBranch?: string;
  sourceProjectId?: number;
  system?: boolean;
  action?: string;
  discussionId?: string;
  /** `object_attributes.type`: `DiscussionNote` for a note in a thread. */
  type?: string | null;
  /** An internal note (`object_attributes.internal`, older GitLab: `confidential`). */
  internal?: boolean;
  /** The issue is confidential (`issue.confidential`). */
  confidentialIssue?: boolean;
  /** The body's `event_type` (default `note`; GitLab sends `confidential_note` for confidential issues). */
  eventType?: string;
  /** `object_attributes.created_at` / `updated_at` (default both the same time). */
  createdAt?: string;
  updatedAt?: string;
  /** Leave `object_attributes.action` out (GitLab before 16.11). */
  noAction?: boolean;
  /** A diff note's `object_attributes.position` (GitLab's `note.position.to_h`). */
  position?: { new_path: string; new_line: number; old_path?: string; old_line?: number | null };
}

export function noteHook(input: NoteHookInput): Record<string, unknown> {
  const projectId = input.projectId ?? 5;
  const user = input.user ?? { id: 11, username: 'dev' };
  const noteId = input.noteId ?? 1244;
  const on = input.on ?? 'merge_request';
  const noteableType = { merge_request: 'MergeRequest', issue: 'Issue', commit: 'Commit' }[on];
  const body: Record<string, unknown> = {
    object_kind: 'note',
    event_type: input.eventType ?? 'note',
    user: { ...user, name: user.username.toUpperCase(), avatar_url: null, email: '[REDACTED]' },
    project_id: projectId,
    project: {
      id: projectId,
      name: 'Demo',
      web_url: `http://gitlab.test/group/demo`,
      path_with_namespace: 'group/demo',
      default_branch: input.defaultBranch ?? 'main',
      visibility_level: 10,
    },
    repository: { name: 'Demo', url: 'http://gitlab.test/group/demo.git' },
    object_attributes: {
      id: noteId,
      note: input.note,
      noteable_type: noteableType,
      author_id: user.id,
      created_at: input.createdAt ?? '2026-05-17 18:21:36 UTC',
      updated_at: input.updatedAt ?? input.createdAt ?? '2026-05-17 18:21:36 UTC',
      project_id: projectId,
      attachment: null,
      line_code: null,
      commit_id: '',
      noteable_id: 7,
      system: input.system ?? false,
      st_diff: null,
      ...(input.noAction ? {} : { action: input.action ?? 'create' }),
      url: `http://gitlab.test/group/demo/-/merge_requests/1#note_${noteId}`,
      ...(input.discussionId ? { discussion_id: input.discussionId } : {}),
      type: input.type ?? null,
      ...(input.position
        ? {
            position: {
              base_sha: 'a'.repeat(40),
              start_sha: 'b'.repeat(40),
              head_sha: 'c'.repeat(40),
              old_path: input.position.new_path,
              old_line: null,
              position_type: 'text',
              line_range: null,
              ...input.position,
            },
          }
        : {}),
      confidential: input.internal ?? false,
      internal: input.internal ?? false,
    },
  };
  if (on === 'merge_request') {
    body.merge_request = {
      id: 7,
      iid: input.iid ?? 1,
      source_branch: input.sourceBranch ?? 'feature/typo',
      target_branch: 'main',
      source_project_id: input.sourceProjectId ?? projectId,
      target_project_id: projectId,
      state: 'opened',
      title: 'Fix things',
      labels: [],
    };
  } else if (on === 'issue') {
    body.issue = {
      id: 92,
      iid: input.iid ?? 17,
      title: 'test',
      state: 'opened',
      labels: [],
      confidential: input.confidentialIssue ?? false,
    };
  } else {
    body.commit = { id: 'cfe32cf61b73a0d5e9f13e774abde7ff789b1660', message: 'x' };
  }
  return body;
}

/**
 * A comment by `author` on a merge request or issue of the scenario's
 * project, added to the stand-in, with the Comments event GitLab sends for it.
 */
export function commentWithHook(
  model: GitLabModel,
  s: Scenario,
  on: MergeRequestRec | IssueRec,
  author: UserRec,
  body: string,
): { note: NoteRec; hook: Record<string, unknown> } {
  const note = model.addNote({ on, body, authorId: author.id });
  const isMr = 'sourceBranch' in on;
  const hook = noteHook({
    note: body,
    noteId: note.id,
    user: { id: author.id, username: author.username },
    projectId: s.project.id,
    defaultBranch: s.project.defaultBranch,
    on: isMr ? 'merge_request' : 'issue',
    iid: on.iid,
    ...(isMr ? { sourceBranch: on.sourceBranch } : {}),
    discussionId: note.discussionId,
  });
  return { note, hook };
}
