/**
 * JSON answers of the stand-in, each checked at compile time against the
 * `@gitbeaker/core` schema of the real answer, so `@gitbeaker/rest` (and
 * anything typed by it) reads them as it reads GitLab's.
 */
import type {
  AwardEmojiSchema,
  DiscussionNoteSchema,
  DiscussionSchema,
  IssueSchema,
  JobSchema,
  MemberSchema,
  MergeRequestSchema,
  NoteSchema,
  PersonalAccessTokenSchema,
  PipelineSchema,
  ProjectSchema,
  ProtectedBranchSchema,
  SimpleProjectSchema,
  SimpleUserSchema,
} from '@gitbeaker/core';
import type { GitLabModel } from './model.ts';
import type {
  AwardRec,
  IssueRec,
  JobRec,
  MergeRequestRec,
  NoteRec,
  PipelineRec,
  ProjectRec,
  ProtectedBranchRec,
  TokenRec,
  UserRec,
} from './records.ts';

type Author = MergeRequestSchema['author'];
/** GitLab sends `group_saml_identity` only for SAML groups. */
type MemberAnswer = Pick<
  MemberSchema,
  | 'id'
  | 'username'
  | 'name'
  | 'state'
  | 'avatar_url'
  | 'web_url'
  | 'expires_at'
  | 'access_level'
  | 'email'
>;
/** `GET /personal_access_tokens/self` never returns the token value. */
type TokenAnswer = Omit<PersonalAccessTokenSchema, 'token'> &
  Pick<
    PersonalAccessTokenSchema,
    'id' | 'name' | 'revoked' | 'created_at' | 'scopes' | 'user_id' | 'last_used_at' | 'active'
  >;

export class Renderer {
  constructor(
    private readonly model: GitLabModel,
    private readonly baseUrl: string,
    private readonly gitHttp = false,
  ) {}

  /** Where clients clone and push: smart HTTP on the stand-in, or the bare repository itself. */
  repoUrl(p: ProjectRec): string {
    return this.gitHttp ? `${this.baseUrl}/${p.path}.git` : `file://${p.repoDir}`;
  }

  private web(path: string): string {
    return `${this.baseUrl}/${path}`;
  }

  private userRec(id: number): UserRec {
    return (
      this.model.users.get(id) ?? {
        id,
        username: `ghost${id}`,
        name: 'Ghost User',
        email: '',
        bot: false,
        createdAt: this.model.now(),
      }
    );
  }

  author(id: number): Author {
    const u = this.userRec(id);
    return {
      id: u.id,
      name: u.name,
      username: u.username,
      state: 'active',
      avatar_url: '',
      web_url: this.web(u.username),
    } satisfies Author;
  }

  user(id: number): SimpleUserSchema & { bot: boolean; email: string } {
    const u = this.userRec(id);
    return { ...this.author(id), created_at: u.createdAt, bot: u.bot, email: u.email };
  }

  project(p: ProjectRec): SimpleProjectSchema & Pick<ProjectSchema, 'visibility' | 'empty_repo'> {
    const [group = '', name = p.path] = [
      p.path.split('/').slice(0, -1).join('/'),
      p.path.split('/').at(-1),
    ];
    return {
      id: p.id,
      web_url: this.web(p.path),
      name,
      path: name,
      description: null,
      name_with_namespace: p.path.replace(/\//g, ' / '),
      path_with_namespace: p.path,
      created_at: p.createdAt,
      default_branch: p.defaultBranch,
      topics: [],
      ssh_url_to_repo: this.repoUrl(p),
      http_url_to_repo: this.repoUrl(p),
      readme_url: null,
      forks_count: 0,
      avatar_url: null,
      star_count: 0,
      last_activity_at: p.createdAt,
      namespace: {
        id: 1,
        name: group,
        path: group,
        kind: 'group',
        full_path: group,
        parent_id: null,
        avatar_url: null,
        web_url: this.web(`groups/${group}`),
      },
      visibility: p.visibility,
      empty_repo: false,
    } satisfies SimpleProjectSchema & Pick<ProjectSchema, 'visibility' | 'empty_repo'>;
  }

  mergeRequest(m: MergeRequestRec, sha: string, project: ProjectRec) {
    const draft = /^\s*(\[draft\]|\(draft\)|draft:|draft\s-\s)/i.test(m.title);
    return {
      id: m.id,
      iid: m.iid,
      project_id: m.projectId,
      title: m.title,
      description: m.description,
      state: m.state,
      created_at: m.createdAt,
      updated_at: m.updatedAt,
      web_url: this.web(`${project.path}/-/merge_requests/${m.iid}`),
      merged_by: null,
      merged_at: null,
      closed_by: null,
      closed_at: null,
      target_branch: m.targetBranch,
      source_branch: m.sourceBranch,
      user_notes_count: this.model.notesOf('MergeRequest', m.id).filter((n) => !n.system).length,
      upvotes: 0,
      downvotes: 0,
      author: this.author(m.authorId),
      assignees: [],
      assignee: null,
      reviewers: [],
      source_project_id: m.sourceProjectId,
      target_project_id: m.projectId,
      labels: m.labels,
      draft,
      work_in_progress: draft,
      milestone: null,
      merge_when_pipeline_succeeds: false,
      merge_status: 'can_be_merged',
      detailed_merge_status: draft ? 'draft_status' : 'mergeable',
      sha,
      merge_commit_sha: null,
      squash_commit_sha: null,
      discussion_locked: null,
      should_remove_source_branch: m.removeSourceBranch,
      force_remove_source_branch: m.removeSourceBranch,
      allow_collaboration: m.allowCollaboration,
      reference: `!${m.iid}`,
      references: { short: `!${m.iid}`, relative: `!${m.iid}`, full: `${project.path}!${m.iid}` },
      time_stats: {
        time_estimate: 0,
        total_time_spent: 0,
        human_time_estimate: null,
        human_total_time_spent: null,
      },
      squash: false,
      task_completion_status: { count: 0, completed_count: 0 },
      prepared_at: m.createdAt,
      has_conflicts: false,
      blocking_discussions_resolved: true,
      approvals_before_merge: null,
    } satisfies MergeRequestSchema;
  }

  issue(i: IssueRec, project: ProjectRec) {
    const web = this.web(`${project.path}/-/issues/${i.iid}`);
    return {
      id: i.id,
      iid: i.iid,
      project_id: i.projectId,
      title: i.title,
      description: i.description,
      state: i.state,
      type: 'ISSUE',
      labels: i.labels,
      author: this.author(i.authorId),
      created_at: i.createdAt,
      updated_at: i.updatedAt,
      web_url: web,
      user_notes_count: this.model.notesOf('Issue', i.id).filter((n) => !n.system).length,
      references: { short: `#${i.iid}`, relative: `#${i.iid}`, full: `${project.path}#${i.iid}` },
      confidential: i.confidential,
      discussion_locked: false,
    } satisfies Partial<IssueSchema>;
  }

  note(n: NoteRec): NoteSchema {
    const thread = this.model.discussions.get(n.discussionId)?.individual === false;
    return {
      id: n.id,
      body: n.body,
      attachment: null,
      author: this.author(n.authorId),
      created_at: n.createdAt,
      updated_at: n.updatedAt,
      system: n.system,
      internal: n.internal,
      confidential: n.internal,
      noteable_id: n.noteableId,
      noteable_type: n.noteableType,
      noteable_iid: n.noteableIid,
      project_id: n.projectId,
      // a thread's notes (DiscussionNote) are resolvable on merge requests and, since
      // GitLab 16.7, on issues; a plain comment and a system note are not
      resolvable: thread && !n.system,
      ...(thread && !n.system ? this.resolution(n.discussionId) : {}),
      type: thread ? 'DiscussionNote' : null,
    } satisfies NoteSchema;
  }

  /** A thread note's resolved state, as GitLab shows it on each note of the thread. */
  private resolution(discussionId: string) {
    const by = this.model.discussions.get(discussionId)?.resolvedBy;
    return {
      resolved: by !== undefined,
      resolved_by: by !== undefined ? this.author(by) : null,
    };
  }

  discussionNote(n: NoteRec): DiscussionNoteSchema {
    const { project_id: _p, ...rest } = this.note(n);
    return {
      ...rest,
      type: (rest.type as DiscussionNoteSchema['type']) ?? null,
    } satisfies DiscussionNoteSchema;
  }

  discussion(id: string, notes: NoteRec[]): DiscussionSchema {
    return {
      id,
      individual_note: this.model.discussions.get(id)?.individual ?? true,
      notes: notes.map((n) => this.discussionNote(n)),
    } satisfies DiscussionSchema;
  }

  award(a: AwardRec, noteableType: string): AwardEmojiSchema {
    return {
      id: a.id,
      name: a.name,
      user: this.user(a.userId),
      created_at: a.createdAt,
      updated_at: a.createdAt,
      awardable_id: a.noteId,
      awardable_type: noteableType === 'Note' ? 'Note' : noteableType,
    } satisfies AwardEmojiSchema;
  }

  member(userId: number, accessLevel: number): MemberAnswer {
    const u = this.author(userId);
    return {
      ...u,
      expires_at: '',
      access_level: accessLevel as MemberSchema['access_level'],
      email: '',
    } satisfies MemberAnswer;
  }

  protectedBranch(b: ProtectedBranchRec): ProtectedBranchSchema {
    const level = (n: number) => ({
      id: b.id,
      access_level: n as 40,
      access_level_description: n >= 40 ? 'Maintainers' : 'Developers + Maintainers',
    });
    return {
      id: b.id,
      name: b.name,
      push_access_levels: [level(b.pushAccessLevel)],
      merge_access_levels: [level(b.mergeAccessLevel)],
      allow_force_push: false,
      code_owner_approval_required: false,
    } satisfies ProtectedBranchSchema;
  }

  pipeline(p: PipelineRec, project: ProjectRec) {
    return {
      id: p.id,
      iid: p.iid,
      project_id: p.projectId,
      sha: p.sha,
      ref: p.ref,
      status: p.status,
      source: p.source,
      name: p.name,
      created_at: p.createdAt,
      updated_at: p.updatedAt,
      web_url: this.web(`${project.path}/-/pipelines/${p.id}`),
      user: this.author(p.userId),
    } satisfies PipelineSchema & { user: Author };
  }

  job(j: JobRec, pipeline: PipelineRec, project: ProjectRec) {
    return {
      id: j.id,
      name: j.name,
      stage: j.stage,
      status: j.status,
      ref: pipeline.ref,
      tag: false,
      allow_failure: false,
      created_at: j.createdAt,
      web_url: this.web(`${project.path}/-/jobs/${j.id}`),
      pipeline: this.pipeline(pipeline, project),
      artifacts: j.artifacts
        ? [
            {
              file_type: 'archive',
              size: j.artifacts.length,
              filename: 'artifacts.zip',
              file_format: 'zip',
            },
          ]
        : [],
      ...(j.artifactsExpireAt ? { artifacts_expire_at: j.artifactsExpireAt } : {}),
    } satisfies Partial<JobSchema>;
  }

  token(t: TokenRec): TokenAnswer {
    return {
      id: t.id,
      name: t.name,
      revoked: t.revoked,
      created_at: this.model.now(),
      scopes: t.scopes,
      user_id: t.userId,
      last_used_at: this.model.now(),
      active: !t.revoked,
      ...(t.expiresAt ? { expires_at: t.expiresAt } : {}),
    } satisfies TokenAnswer;
  }
}
