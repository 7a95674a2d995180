/**
 * The stand-in's state and the control API tests (and `mr-agent demo`) use to
 * set it up: users and tokens, projects with bare repositories, members,
 * merge requests, issues, notes, protected branches, pipelines, jobs and
 * their artifacts.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { zipSync } from 'fflate';
import type { Clock } from '../../run/clock.ts';
import { commitFiles, copyBranches, initBareRepo, revParse } from './git.ts';
import type {
  AwardRec,
  DiscussionRec,
  IssueRec,
  JobRec,
  MemberRec,
  MergeRequestRec,
  NoteableKind,
  NoteRec,
  PipelineRec,
  PipelineStatus,
  ProjectRec,
  ProtectedBranchRec,
  QuickActionRec,
  TokenRec,
  TriggerTokenRec,
  UserRec,
} from './records.ts';

export const TERMINAL: readonly PipelineStatus[] = ['success', 'failed', 'canceled', 'skipped'];

function hex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

export interface NewPipeline {
  project: ProjectRec;
  ref: string;
  source?: string;
  status?: PipelineStatus;
  variables?: Record<string, string>;
  userId: number;
  jobs?: string[];
}

export class GitLabModel {
  readonly users = new Map<number, UserRec>();
  readonly tokens = new Map<string, TokenRec>();
  readonly projects = new Map<number, ProjectRec>();
  readonly members: MemberRec[] = [];
  readonly mergeRequests: MergeRequestRec[] = [];
  readonly issues: IssueRec[] = [];
  readonly notes: NoteRec[] = [];
  readonly discussions = new Map<string, DiscussionRec>();
  readonly awards: AwardRec[] = [];
  readonly protectedBranches: ProtectedBranchRec[] = [];
  readonly pipelines: PipelineRec[] = [];
  readonly jobs: JobRec[] = [];
  readonly triggerTokens: TriggerTokenRec[] = [];
  /** Quick actions GitLab would have run from note bodies (they must stay empty for the agent's notes). */
  readonly quickActions: QuickActionRec[] = [];
  /** Called for every note added (webhooks listen here). */
  readonly onNote: ((note: NoteRec) => void)[] = [];
  /** Jobs a triggered pipeline gets. */
  triggeredJobs: string[] = ['mr-agent'];
  private next = { id: 100, note: 1000, pipeline: 500, job: 9000 };

  constructor(
    private readonly root: string,
    private readonly clock: Clock,
  ) {}

  now(): string {
    return new Date(this.clock.now()).toISOString();
  }

  nextId(kind: keyof GitLabModel['next'] = 'id'): number {
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
  }): Promise<ProjectRec> {
    const project: ProjectRec = {
      id: this.nextId(),
      path: input.path,
      defaultBranch: input.defaultBranch ?? input.forkOf?.defaultBranch ?? 'main',
      visibility: input.visibility ?? 'private',
      repoDir: path.join(this.root, `${input.path}.git`),
      forkedFromId: input.forkOf?.id ?? null,
      createdAt: this.now(),
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

  addTriggerToken(project: ProjectRec, ownerId: number, value?: string): TriggerTokenRec {
    const rec = {
      id: this.nextId(),
      projectId: project.id,
      value: value ?? `glptt-${hex(10)}`,
      ownerId,
      description: 'mr-agent',
    };
    this.triggerTokens.push(rec);
    return rec;
  }

  async createPipeline(input: NewPipeline): Promise<{ pipeline: PipelineRec; jobs: JobRec[] }> {
    const sha = (await revParse(input.project.repoDir, input.ref)) ?? '0'.repeat(40);
    const pipeline: PipelineRec = {
      id: this.nextId('pipeline'),
      iid: this.pipelines.filter((p) => p.projectId === input.project.id).length + 1,
      projectId: input.project.id,
      ref: input.ref,
      sha,
      status: input.status ?? 'pending',
      source: input.source ?? 'push',
      userId: input.userId,
      variables: input.variables ?? {},
      createdAt: this.now(),
      updatedAt: this.now(),
    };
    this.pipelines.push(pipeline);
    const jobs = (input.jobs ?? ['mr-agent']).map((name) => this.addJob(pipeline, name));
    return { pipeline, jobs };
  }

  private addJob(pipeline: PipelineRec, name: string): JobRec {
    const job: JobRec = {
      id: this.nextId('job'),
      pipelineId: pipeline.id,
      projectId: pipeline.projectId,
      name,
      stage: 'agent',
      status: pipeline.status,
      artifacts: null,
      artifactsExpireAt: null,
      createdAt: this.now(),
    };
    this.jobs.push(job);
    return job;
  }

  /** A CI_JOB_TOKEN for the job: acts as the pipeline's user, on the few endpoints GitLab allows. */
  addJobToken(job: JobRec): TokenRec {
    const pipeline = this.pipelines.find((p) => p.id === job.pipelineId)!;
    const token: TokenRec = {
      id: this.nextId(),
      value: `glcbt-${hex(10)}`,
      name: `job ${job.id}`,
      userId: pipeline.userId,
      kind: 'job',
      scopes: [],
      revoked: false,
      expiresAt: null,
      jobId: job.id,
    };
    this.tokens.set(token.value, token);
    return token;
  }

  /** Stores the job's artifacts as a zip of `files`. */
  setJobArtifacts(jobId: number, files: Record<string, string | Uint8Array>, expireAt?: string) {
    const job = this.job(jobId);
    const entries = Object.fromEntries(
      Object.entries(files).map(([name, data]) => [
        name,
        typeof data === 'string' ? new TextEncoder().encode(data) : data,
      ]),
    );
    job.artifacts = zipSync(entries);
    job.artifactsExpireAt = expireAt ?? new Date(this.clock.now() + 30 * 86400_000).toISOString();
  }

  /** The artifacts expire or are deleted: downloads answer 404 from now on. */
  deleteJobArtifacts(jobId: number): void {
    const job = this.job(jobId);
    job.artifacts = null;
    job.artifactsExpireAt = null;
  }

  setPipelineStatus(pipelineId: number, status: PipelineStatus): void {
    const pipeline = this.pipelines.find((p) => p.id === pipelineId);
    if (!pipeline) throw new Error(`no pipeline ${pipelineId}`);
    pipeline.status = status;
    pipeline.updatedAt = this.now();
    for (const job of this.jobs.filter((j) => j.pipelineId === pipelineId)) {
      if (!TERMINAL.includes(job.status)) job.status = status;
    }
  }

  job(jobId: number): JobRec {
    const job = this.jobs.find((j) => j.id === jobId);
    if (!job) throw new Error(`no job ${jobId}`);
    return job;
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
