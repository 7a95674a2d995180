/**
 * The stand-in's state, first part: users and tokens, projects with bare
 * repositories, members, merge requests, issues, notes and protected
 * branches, with the control API tests (and `mr-agent demo`) use to set it up.
 * model.ts adds pipelines, jobs and artifacts.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Clock } from '../../core/clock.ts';
import { commitFiles, copyBranches, initBareRepo, revParse } from './git.ts';
import type {
  AwardRec,
  TargetAwardRec,
  DiscussionRec,
  IssueRec,
  MemberRec,
  MergeRequestRec,
  NoteableKind,
  NoteRec,
  ProjectRec,
  ProtectedBranchRec,
  QuickActionRec,
  TokenRec,
  UserRec,
} from './records.ts';

function hex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

/** Users, projects, repositories, merge requests, issues and notes. */
export class CoreModel {
  readonly users = new Map<number, UserRec>();
  readonly tokens = new Map<string, TokenRec>();
  readonly projects = new Map<number, ProjectRec>();
  readonly members: MemberRec[] = [];
  readonly mergeRequests: MergeRequestRec[] = [];
  readonly issues: IssueRec[] = [];
  readonly notes: NoteRec[] = [];
  readonly discussions = new Map<string, DiscussionRec>();
  readonly awards: AwardRec[] = [];
  /** Award emoji on merge requests and issues themselves. */
  readonly targetAwards: TargetAwardRec[] = [];
  readonly protectedBranches: ProtectedBranchRec[] = [];
  /** Pushes the project's server hooks or push rules refuse (smart HTTP only). */
  readonly pushRefusals: { projectId: number; branch: string; message: string }[] = [];
  /** Quick actions GitLab would have run from note bodies (they must stay empty for the agent's notes). */
  readonly quickActions: QuickActionRec[] = [];
  /** Called for every note added (webhooks listen here). */
  readonly onNote: ((note: NoteRec) => void)[] = [];
  protected next = { id: 100, note: 1000, pipeline: 500, job: 9000 };

  constructor(
    private readonly root: string,
    protected readonly clock: Clock,
  ) {}

  now(): string {
    return new Date(this.clock.now()).toISOString();
  }

  nextId(kind: keyof CoreModel['next'] = 'id'): number {
    return ++this.next[kind];
  }

  addUser(input: { username: string; name?: string; bot?: boolean }): UserRec {
    const user: UserRec = {
      id: this.nextId(),
      username: input.username,
      name: input.name ?? input.username,
      email: `${input.username}@users.gitlab.invalid`,
      bot: input.bot ?? false,
      createdAt: this.now(),
    };
    this.users.set(user.id, user);
    return user;
  }

  addToken(
    userId: number,
    input: { scopes?: string[]; value?: string; name?: string; expiresAt?: string } = {},
  ): TokenRec {
    const token: TokenRec = {
      id: this.nextId(),
      value: input.value ?? `glpat-${hex(10)}`,
      name: input.name ?? 'token',
      userId,
      kind: 'personal',
      scopes: input.scopes ?? ['api'],
      revoked: false,
      expiresAt: input.expiresAt ?? null,
    };
    this.tokens.set(token.value, token);
    return token;
  }

  async addProject(input: {
    path: string;
    defaultBranch?: string;
    visibility?: ProjectRec['visibility'];
    files?: Record<string, string>;
    forkOf?: ProjectRec;
    pipelineVariablesMinimumRole?: ProjectRec['pipelineVariablesMinimumRole'];
  }): Promise<ProjectRec> {
    const project: ProjectRec = {
      id: this.nextId(),
      path: input.path,
      defaultBranch: input.defaultBranch ?? input.forkOf?.defaultBranch ?? 'main',
      visibility: input.visibility ?? 'private',
      repoDir: path.join(this.root, `${input.path}.git`),
      forkedFromId: input.forkOf?.id ?? null,
      createdAt: this.now(),
      pipelineVariablesMinimumRole: input.pipelineVariablesMinimumRole ?? 'developer',
    };
    await initBareRepo(project.repoDir, project.defaultBranch);
    if (input.forkOf) await copyBranches(project.repoDir, input.forkOf.repoDir);
    if (input.files) await commitFiles(project.repoDir, project.defaultBranch, input.files);
    this.projects.set(project.id, project);
    return project;
  }

  /** Commits files on a branch of the project's repository (creating it from `from`). */
  commit(
    project: ProjectRec,
    branch: string,
    files: Record<string, string | null>,
    options: { from?: string; message?: string } = {},
  ): Promise<string> {
    return commitFiles(project.repoDir, branch, files, options);
  }

  headOf(project: ProjectRec, ref: string): Promise<string | undefined> {
    return revParse(project.repoDir, ref);
  }

  /** `scope`: a project, or a group path whose projects inherit the membership. */
  addMember(scope: ProjectRec | string, userId: number, accessLevel: number): void {
    this.members.push({ scope: typeof scope === 'string' ? scope : scope.id, userId, accessLevel });
  }

  /** Highest role of the user on the project, direct or inherited from its groups. */
  accessLevel(project: ProjectRec, userId: number): number {
    const groups = project.path.split('/').slice(0, -1);
    const scopes = new Set<number | string>([project.id]);
    groups.forEach((_, i) => scopes.add(groups.slice(0, i + 1).join('/')));
    return this.members
      .filter((m) => m.userId === userId && scopes.has(m.scope))
      .reduce((max, m) => Math.max(max, m.accessLevel), 0);
  }

  createMergeRequest(input: {
    project: ProjectRec;
    sourceProject?: ProjectRec;
    sourceBranch: string;
    targetBranch?: string;
    title: string;
    description?: string;
    labels?: string[];
    authorId: number;
    allowCollaboration?: boolean;
  }): MergeRequestRec {
    const iid = this.mergeRequests.filter((m) => m.projectId === input.project.id).length + 1;
    const mr: MergeRequestRec = {
      id: this.nextId(),
      iid,
      projectId: input.project.id,
      sourceProjectId: (input.sourceProject ?? input.project).id,
      title: input.title,
      description: input.description ?? '',
      labels: input.labels ?? [],
      sourceBranch: input.sourceBranch,
      targetBranch: input.targetBranch ?? input.project.defaultBranch,
      authorId: input.authorId,
      state: 'opened',
      allowCollaboration: input.allowCollaboration ?? false,
      removeSourceBranch: false,
      createdAt: this.now(),
      updatedAt: this.now(),
    };
    this.mergeRequests.push(mr);
    return mr;
  }

  createIssue(input: {
    project: ProjectRec;
    title: string;
    description?: string;
    labels?: string[];
    authorId: number;
    confidential?: boolean;
  }): IssueRec {
    const iid = this.issues.filter((i) => i.projectId === input.project.id).length + 1;
    const issue: IssueRec = {
      id: this.nextId(),
      iid,
      projectId: input.project.id,
      title: input.title,
      description: input.description ?? '',
      labels: input.labels ?? [],
      authorId: input.authorId,
      state: 'opened',
      confidential: input.confidential ?? false,
      createdAt: this.now(),
      updatedAt: this.now(),
    };
    this.issues.push(issue);
    return issue;
  }

  /** Adds a note directly (a human comment, a system note, or a reply when `discussionId` is set). */
  addNote(input: {
    on: MergeRequestRec | IssueRec;
    body: string;
    authorId: number;
    system?: boolean;
    internal?: boolean;
    discussionId?: string;
  }): NoteRec {
    const noteableType: NoteableKind = 'sourceBranch' in input.on ? 'MergeRequest' : 'Issue';
    let discussionId = input.discussionId;
    if (discussionId) {
      const discussion = this.discussions.get(discussionId);
      if (discussion) discussion.individual = false;
    } else {
      discussionId = hex(20);
      this.discussions.set(discussionId, { id: discussionId, individual: true });
    }
    const note: NoteRec = {
      id: this.nextId('note'),
      projectId: input.on.projectId,
      noteableType,
      noteableId: input.on.id,
      noteableIid: input.on.iid,
      body: input.body,
      authorId: input.authorId,
      system: input.system ?? false,
      internal: input.internal ?? false,
      discussionId,
      createdAt: this.now(),
      updatedAt: this.now(),
    };
    this.notes.push(note);
    for (const listener of this.onNote) listener(note);
    return note;
  }

  protectBranch(project: ProjectRec, name: string, pushAccessLevel = 40): ProtectedBranchRec {
    const rec = {
      id: this.nextId(),
      projectId: project.id,
      name,
      pushAccessLevel,
      mergeAccessLevel: 40,
    };
    this.protectedBranches.push(rec);
    return rec;
  }

  /**
   * A server hook or push rule that refuses pushes to matching branches
   * (`*` matches any text) with `message`, shown as `remote: GitLab: …`.
   */
  refusePushes(project: ProjectRec, branch: string, message: string): void {
    this.pushRefusals.push({ projectId: project.id, branch, message });
  }

  /** A project by numeric id or (URL-decoded) `group/name` path. */
  findProject(ref: string): ProjectRec | undefined {
    if (/^\d+$/.test(ref)) return this.projects.get(Number(ref));
    return [...this.projects.values()].find((p) => p.path === ref);
  }

  notesOf(noteableType: NoteableKind, noteableId: number): NoteRec[] {
    return this.notes.filter((n) => n.noteableType === noteableType && n.noteableId === noteableId);
  }
}
