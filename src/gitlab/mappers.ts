/** GitLab's snake_case answers (validated by schemas.ts) → the port's types. */
import type * as z from 'zod';
import { ExternalServiceError } from '../errors/errors.ts';
import type {
  AwardEmoji,
  ChangedFile,
  DiffLineRef,
  DiffPosition,
  DiffVersion,
  Discussion,
  GitLabUser,
  Issue,
  Job,
  MergeRequest,
  Note,
  Pipeline,
  Project,
  TokenInfo,
  WorkItem,
} from '../core/gitlab-port.ts';
import type {
  AwardEmojiSchema,
  DiffVersionSchema,
  DiscussionSchema,
  GitLabUserSchema,
  IssueSchema,
  JobSchema,
  MergeRequestDiffSchema,
  MergeRequestSchema,
  NoteSchema,
  PipelineSchema,
  PositionSchema,
  ProjectSchema,
  TokenInfoSchema,
  WorkItemSchema,
} from './schemas.ts';

/** Parses an answer or says clearly which request returned something unexpected. */
export function parseAnswer<S extends z.ZodType>(
  schema: S,
  value: unknown,
  what: string,
): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const at = issue?.path.length ? ` at ${issue.path.join('.')}` : '';
  throw new ExternalServiceError('GitLab', `unexpected answer to ${what}${at}: ${issue?.message}`, {
    hint: 'Is the URL a GitLab instance (API v4)?',
  });
}

export function toUser(u: GitLabUserSchema): GitLabUser {
  return { id: u.id, username: u.username, name: u.name ?? u.username, bot: u.bot ?? false };
}

export function toProject(p: z.infer<typeof ProjectSchema>): Project {
  return {
    id: p.id,
    pathWithNamespace: p.path_with_namespace,
    defaultBranch: p.default_branch ?? 'main',
    visibility: p.visibility ?? 'private',
    httpUrlToRepo: p.http_url_to_repo ?? '',
    webUrl: p.web_url ?? '',
  };
}

export function toMergeRequest(m: z.infer<typeof MergeRequestSchema>): MergeRequest {
  return {
    ...toWorkItem(m),
    sourceBranch: m.source_branch,
    targetBranch: m.target_branch,
    sourceProjectId: m.source_project_id,
    targetProjectId: m.target_project_id,
    isFork: m.source_project_id !== m.target_project_id,
    allowCollaboration: m.allow_collaboration ?? false,
    draft: m.draft ?? /^\s*draft:/i.test(m.title),
    sha: m.sha ?? '',
  };
}

function countLines(diff: string): { additions: number; deletions: number } {
  let additions = 0;
  let deletions = 0;
  for (const line of diff.split('\n')) {
    if (line.startsWith('+') && !line.startsWith('+++')) additions++;
    else if (line.startsWith('-') && !line.startsWith('---')) deletions++;
  }
  return { additions, deletions };
}

export function toChangedFile(d: z.infer<typeof MergeRequestDiffSchema>): ChangedFile {
  const status = d.new_file
    ? 'added'
    : d.deleted_file
      ? 'deleted'
      : d.renamed_file
        ? 'renamed'
        : 'modified';
  return { oldPath: d.old_path, newPath: d.new_path, status, ...countLines(d.diff), diff: d.diff };
}

/** What a merge request and an issue have in common. */
function toWorkItem(i: z.infer<typeof WorkItemSchema>): WorkItem {
  return {
    id: i.id,
    iid: i.iid,
    projectId: i.project_id,
    title: i.title,
    description: i.description,
    state: i.state,
    labels: i.labels,
    author: toUser(i.author),
    webUrl: i.web_url ?? '',
  };
}

export function toIssue(i: z.infer<typeof IssueSchema>): Issue {
  return { ...toWorkItem(i), confidential: i.confidential === true };
}

export function toNote(n: z.infer<typeof NoteSchema>): Note {
  return {
    id: n.id,
    body: n.body,
    author: toUser(n.author),
    system: n.system ?? false,
    internal: n.internal === true || n.confidential === true,
    createdAt: n.created_at,
    updatedAt: n.updated_at ?? n.created_at,
    ...(n.position ? { position: toPosition(n.position) } : {}),
    ...(typeof n.resolved === 'boolean' ? { resolved: n.resolved } : {}),
  };
}

type LineRefAnswer = NonNullable<z.infer<typeof PositionSchema>['line_range']>['start'];

function toLineRef(r: LineRefAnswer): DiffLineRef {
  return {
    lineCode: r.line_code ?? '',
    type: r.type === 'new' || r.type === 'old' ? r.type : undefined,
    oldLine: r.old_line ?? undefined,
    newLine: r.new_line ?? undefined,
  };
}

export function toPosition(p: z.infer<typeof PositionSchema>): DiffPosition {
  const range = p.line_range;
  return {
    baseSha: p.base_sha ?? '',
    startSha: p.start_sha ?? '',
    headSha: p.head_sha ?? '',
    oldPath: p.old_path ?? p.new_path ?? '',
    newPath: p.new_path ?? p.old_path ?? '',
    oldLine: p.old_line ?? undefined,
    newLine: p.new_line ?? undefined,
    ...(range ? { lineRange: { start: toLineRef(range.start), end: toLineRef(range.end) } } : {}),
  };
}

export function toDiffVersion(v: z.infer<typeof DiffVersionSchema>): DiffVersion {
  return {
    id: v.id,
    headSha: v.head_commit_sha,
    baseSha: v.base_commit_sha,
    startSha: v.start_commit_sha,
    createdAt: v.created_at,
  };
}

export function toDiscussion(d: z.infer<typeof DiscussionSchema>): Discussion {
  return {
    id: d.id,
    individualNote: d.individual_note ?? false,
    notes: (d.notes ?? []).map(toNote),
  };
}

export function toAward(a: z.infer<typeof AwardEmojiSchema>): AwardEmoji {
  return { id: a.id, name: a.name, user: toUser(a.user), createdAt: a.created_at ?? undefined };
}

export function toPipeline(p: z.infer<typeof PipelineSchema>): Pipeline {
  return {
    id: p.id,
    iid: p.iid ?? p.id,
    projectId: p.project_id ?? 0,
    ref: p.ref,
    sha: p.sha ?? '',
    status: p.status,
    source: p.source ?? '',
    name: p.name ?? undefined,
    webUrl: p.web_url ?? '',
    createdAt: p.created_at ?? '',
  };
}

export function toJob(j: z.infer<typeof JobSchema>): Job {
  return {
    id: j.id,
    name: j.name,
    status: j.status,
    ref: j.ref ?? '',
    pipelineId: j.pipeline?.id ?? 0,
    webUrl: j.web_url ?? '',
    artifactsExpireAt: j.artifacts_expire_at ?? undefined,
  };
}

export function toTokenInfo(t: z.infer<typeof TokenInfoSchema>): TokenInfo {
  return {
    id: t.id,
    name: t.name ?? '',
    scopes: t.scopes,
    userId: t.user_id ?? undefined,
    active: (t.active ?? true) && !(t.revoked ?? false),
    expiresAt: t.expires_at ?? undefined,
  };
}
