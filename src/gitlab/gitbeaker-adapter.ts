/**
 * The GitLab port over `@gitbeaker/rest`, with mr-agent's own transport
 * (requester.ts: retries through the Clock, ExternalServiceError) plugged in
 * through gitbeaker's `requesterFn`.
 */
import * as z from 'zod';
import { ExternalServiceError } from '../errors/errors.ts';
import type { Logger } from '../log/logger.ts';
import type { Clock } from '../core/clock.ts';
import {
  parseAnswer,
  toAward,
  toChangedFile,
  toDiffVersion,
  toDiscussion,
  toIssue,
  toJob,
  toMergeRequest,
  toNote,
  toPipeline,
  toProject,
  toTokenInfo,
  toUser,
} from './mappers.ts';
import type {
  AwardResult,
  DiffPosition,
  GitLabPort,
  GitLabUser,
  NewMergeRequest,
  Noteable,
  PipelineFilter,
  ProjectRef,
  TriggerRequest,
} from '../core/gitlab-port.ts';
import { CheckedWriter } from './checked-write.ts';
import { gitbeakerApi, isStatus, type Api, type ApiOptions } from './gitbeaker-api.ts';
import * as posts from './posts.ts';
import { createRetryingRequesterFn, type RequestRecord, type RetryPolicy } from './requester.ts';
import {
  landedAward,
  landedDiscussion,
  landedMergeRequest,
  landedNote,
  landedReply,
  landedTrigger,
} from './write-checks.ts';
import {
  AwardEmojiSchema,
  DiffVersionSchema,
  DiscussionSchema,
  GitLabUserSchema,
  GitLabVersionSchema,
  IssueSchema,
  JobSchema,
  MemberSchema,
  MergeRequestDiffSchema,
  MergeRequestSchema,
  NoteSchema,
  PipelineSchema,
  PipelineVariableSchema,
  ProjectSchema,
  ProtectedBranchSchema,
  TokenInfoSchema,
} from './schemas.ts';

export interface GitLabClientOptions {
  /** Base URL of the instance, e.g. `https://gitlab.example.com` (no `/api/v4`). */
  url: string;
  token: string;
  /** How the token is sent: PRIVATE-TOKEN (default), OAuth bearer, or JOB-TOKEN. */
  tokenKind?: 'private' | 'oauth' | 'job';
  clock: Clock;
  logger?: Logger;
  retry?: Partial<RetryPolicy>;
  onAttempt?: (record: RequestRecord) => void;
}

const PAGE = { perPage: 100 } as const;

function tokenOption(kind: GitLabClientOptions['tokenKind'], token: string) {
  if (kind === 'oauth') return { oauthToken: token };
  if (kind === 'job') return { jobToken: token };
  return { token };
}

/** The real GitLab port. */
export function createGitLabClient(options: GitLabClientOptions): GitLabPort {
  const host = options.url.replace(/\/+$/, '').replace(/\/api\/v4$/, '');
  const api = gitbeakerApi({
    host,
    ...tokenOption(options.tokenKind, options.token),
    queryTimeout: 0,
    requesterFn: createRetryingRequesterFn({
      clock: options.clock,
      logger: options.logger,
      policy: options.retry,
      onAttempt: options.onAttempt,
    }),
  } as ApiOptions);
  const writer = new CheckedWriter({
    clock: options.clock,
    logger: options.logger,
    policy: options.retry,
  });
  return new GitbeakerGitLab(api, writer);
}

async function blobToBytes(value: unknown): Promise<Uint8Array> {
  if (value instanceof Blob) return new Uint8Array(await value.arrayBuffer());
  if (typeof value === 'string') return new TextEncoder().encode(value);
  throw new ExternalServiceError('GitLab', 'artifacts download returned no file');
}

class GitbeakerGitLab implements GitLabPort {
  /** The token's user, asked once (write checks need it; it does not change). */
  private self: Promise<GitLabUser> | undefined;

  constructor(
    private readonly api: Api,
    /** Every POST goes through it: retried only after checking it did not land. */
    private readonly writer: CheckedWriter,
  ) {}

  currentUser(): Promise<GitLabUser> {
    this.self ??= this.api.Users.showCurrentUser().then(
      (raw) => toUser(parseAnswer(GitLabUserSchema, raw, 'GET /user')),
      (error: unknown) => {
        this.self = undefined;
        throw error;
      },
    );
    return this.self;
  }

  async tokenInfo() {
    const raw = await this.api.PersonalAccessTokens.show();
    return toTokenInfo(parseAnswer(TokenInfoSchema, raw, 'GET /personal_access_tokens/self'));
  }

  async instanceVersion() {
    const response = await this.api.Users.requester.get('version');
    return parseAnswer(GitLabVersionSchema, response.body, 'GET /version').version;
  }

  async getProject(project: ProjectRef) {
    return toProject(parseAnswer(ProjectSchema, await this.api.Projects.show(project), 'project'));
  }

  async getMergeRequest(project: ProjectRef, iid: number) {
    const raw = await this.api.MergeRequests.show(project, iid);
    return toMergeRequest(parseAnswer(MergeRequestSchema, raw, `merge request !${iid}`));
  }

  async listMergeRequestChanges(project: ProjectRef, iid: number) {
    const raw = await this.api.MergeRequests.allDiffs(project, iid, PAGE);
    return parseAnswer(z.array(MergeRequestDiffSchema), raw, `diffs of !${iid}`).map(toChangedFile);
  }

  async findMergeRequests(
    project: ProjectRef,
    filter: { sourceBranch?: string; state?: 'opened' | 'closed' | 'merged' | 'all' },
  ) {
    const raw = await this.api.MergeRequests.all({
      projectId: project,
      ...(filter.sourceBranch ? { sourceBranch: filter.sourceBranch } : {}),
      ...(filter.state && filter.state !== 'all' ? { state: filter.state } : {}),
      ...PAGE,
      maxPages: 1,
    });
    return parseAnswer(z.array(MergeRequestSchema), raw, 'merge requests').map(toMergeRequest);
  }

  createMergeRequest(project: ProjectRef, request: NewMergeRequest) {
    return this.writer.run({
      what: 'POST merge request',
      write: () => posts.mergeRequest(this.api, project, request),
      landed: () => landedMergeRequest(this, project, request),
    });
  }

  async getIssue(project: ProjectRef, iid: number) {
    const raw = await this.api.Issues.show(iid, { projectId: project });
    return toIssue(parseAnswer(IssueSchema, raw, `issue #${iid}`));
  }

  async listNotes(project: ProjectRef, on: Noteable) {
    const opts = { sort: 'asc', orderBy: 'created_at', ...PAGE } as const;
    const raw =
      on.type === 'merge_request'
        ? await this.api.MergeRequestNotes.all(project, on.iid, opts)
        : await this.api.IssueNotes.all(project, on.iid, opts);
    return parseAnswer(z.array(NoteSchema), raw, 'notes').map(toNote);
  }

  async listNewestNotes(
    project: ProjectRef,
    on: Noteable,
    page: { page: number; perPage: number },
  ) {
    const opts = {
      sort: 'desc',
      orderBy: 'created_at',
      page: page.page,
      perPage: page.perPage,
      maxPages: 1,
    } as const;
    const raw =
      on.type === 'merge_request'
        ? await this.api.MergeRequestNotes.all(project, on.iid, opts)
        : await this.api.IssueNotes.all(project, on.iid, opts);
    return parseAnswer(z.array(NoteSchema), raw, 'notes').map(toNote);
  }

  async getNote(project: ProjectRef, on: Noteable, noteId: number) {
    const raw =
      on.type === 'merge_request'
        ? await this.api.MergeRequestNotes.show(project, on.iid, noteId)
        : await this.api.IssueNotes.show(project, on.iid, noteId);
    return toNote(parseAnswer(NoteSchema, raw, `note ${noteId}`));
  }

  async listDiscussions(project: ProjectRef, on: Noteable) {
    const raw =
      on.type === 'merge_request'
        ? await this.api.MergeRequestDiscussions.all(project, on.iid, PAGE)
        : await this.api.IssueDiscussions.all(project, on.iid, PAGE);
    return parseAnswer(z.array(DiscussionSchema), raw, 'discussions').map(toDiscussion);
  }

  async getDiscussion(project: ProjectRef, on: Noteable, discussionId: string) {
    try {
      const raw =
        on.type === 'merge_request'
          ? await this.api.MergeRequestDiscussions.show(project, on.iid, discussionId)
          : await this.api.IssueDiscussions.show(project, on.iid, discussionId);
      return toDiscussion(parseAnswer(DiscussionSchema, raw, 'discussion'));
    } catch (error) {
      if (isStatus(error, 404)) return undefined;
      throw error;
    }
  }

  createNote(
    project: ProjectRef,
    on: Noteable,
    body: string,
    options: { internal?: boolean } = {},
  ) {
    return this.writer.run({
      what: 'POST note',
      write: () => posts.note(this.api, project, on, body, options.internal === true),
      landed: () => landedNote(this, project, on, body),
    });
  }

  /** A new thread (posts.ts); after a lost answer, looked for among our threads by its first note. */
  createDiscussion(project: ProjectRef, on: Noteable, body: string) {
    return this.writer.run({
      what: 'POST thread',
      write: () => posts.discussion(this.api, project, on, body),
      landed: () => landedDiscussion(this, project, on, body),
    });
  }

  async listDiffVersions(project: ProjectRef, iid: number) {
    const raw = await this.api.MergeRequests.allDiffVersions(project, iid);
    return parseAnswer(z.array(DiffVersionSchema), raw, `diff versions of !${iid}`).map(
      toDiffVersion,
    );
  }

  createDiffDiscussion(project: ProjectRef, iid: number, body: string, position: DiffPosition) {
    const on: Noteable = { type: 'merge_request', iid };
    return this.writer.run({
      what: 'POST diff thread',
      write: () => posts.diffDiscussion(this.api, project, iid, body, position),
      landed: () => landedDiscussion(this, project, on, body),
    });
  }

  async resolveDiscussion(
    project: ProjectRef,
    iid: number,
    discussionId: string,
    resolved: boolean,
  ) {
    const raw = await this.api.MergeRequestDiscussions.resolve(
      project,
      iid,
      discussionId,
      resolved,
    );
    return toDiscussion(parseAnswer(DiscussionSchema, raw, `thread ${discussionId}`));
  }

  async editNote(project: ProjectRef, on: Noteable, noteId: number, body: string) {
    const raw =
      on.type === 'merge_request'
        ? await this.api.MergeRequestNotes.edit(project, on.iid, noteId, { body })
        : await this.api.IssueNotes.edit(project, on.iid, noteId, { body });
    return toNote(parseAnswer(NoteSchema, raw, `edited note ${noteId}`));
  }

  replyToDiscussion(project: ProjectRef, on: Noteable, discussionId: string, body: string) {
    return this.writer.run({
      what: 'POST reply',
      write: () => posts.reply(this.api, project, on, discussionId, body),
      landed: () => landedReply(this, project, on, discussionId, body),
    });
  }

  /**
   * After a lost answer the award is looked for among the note's awards by
   * this user: found, it is ours (the retry would get GitLab's 404 "has
   * already been taken" for the same reason).
   */
  awardEmojiOnNote(
    project: ProjectRef,
    on: Noteable,
    noteId: number,
    name: string,
  ): Promise<AwardResult> {
    return this.writer.run({
      what: 'POST award emoji',
      write: () => posts.award(this.api, project, on, noteId, name),
      landed: () => landedAward(this, project, on, noteId, name),
    });
  }

  async listNoteAwardEmoji(project: ProjectRef, on: Noteable, noteId: number) {
    const raw =
      on.type === 'merge_request'
        ? await this.api.MergeRequestNoteAwardEmojis.all(project, on.iid, noteId, PAGE)
        : await this.api.IssueNoteAwardEmojis.all(project, on.iid, noteId, PAGE);
    return parseAnswer(z.array(AwardEmojiSchema), raw, 'award emoji').map(toAward);
  }

  /** Like a note's award: after a lost answer, our award of that name is looked for first. */
  awardEmojiOnTarget(project: ProjectRef, on: Noteable, name: string): Promise<AwardResult> {
    return this.writer.run({
      what: 'POST award emoji',
      write: () => posts.awardTarget(this.api, project, on, name),
      landed: async () => {
        const self = await this.currentUser();
        const award = (await this.listTargetAwardEmoji(project, on)).find(
          (a) => a.user.id === self.id && a.name === name,
        );
        return award ? ({ awarded: true, award } as const) : undefined;
      },
    });
  }

  async listTargetAwardEmoji(project: ProjectRef, on: Noteable) {
    const raw =
      on.type === 'merge_request'
        ? await this.api.MergeRequestAwardEmojis.all(project, on.iid, PAGE)
        : await this.api.IssueAwardEmojis.all(project, on.iid, PAGE);
    return parseAnswer(z.array(AwardEmojiSchema), raw, 'award emoji').map(toAward);
  }

  async removeTargetAwardEmoji(project: ProjectRef, on: Noteable, awardId: number) {
    try {
      if (on.type === 'merge_request')
        await this.api.MergeRequestAwardEmojis.remove(project, on.iid, awardId);
      else await this.api.IssueAwardEmojis.remove(project, on.iid, awardId);
    } catch (error) {
      // removed already (by us after a lost answer, or as a stale lock by a peer)
      if (isStatus(error, 404)) return;
      throw error;
    }
  }

  async accessLevel(project: ProjectRef, userId: number) {
    try {
      const raw = await this.api.ProjectMembers.show(project, userId, { includeInherited: true });
      return parseAnswer(MemberSchema, raw, 'member').access_level;
    } catch (error) {
      if (isStatus(error, 404)) return 0;
      throw error;
    }
  }

  async listMembers(project: ProjectRef, maxPages: number) {
    // a listing that fills every page it may read may have been cut short
    const raw = await this.api.ProjectMembers.all(project, {
      includeInherited: true,
      perPage: 100,
      maxPages,
    });
    const list = parseAnswer(z.array(MemberSchema), raw, 'members');
    const members = new Map<number, number>();
    for (const member of list)
      members.set(member.id, Math.max(members.get(member.id) ?? 0, member.access_level));
    return { members, complete: list.length < maxPages * 100 };
  }

  async listProtectedBranches(project: ProjectRef) {
    const raw = await this.api.ProtectedBranches.all(project, PAGE);
    return parseAnswer(z.array(ProtectedBranchSchema), raw, 'protected branches').map((b) => ({
      name: b.name,
    }));
  }

  async readFile(project: ProjectRef, path: string, ref: string) {
    try {
      const raw: unknown = await this.api.RepositoryFiles.showRaw(project, path, ref);
      if (typeof raw === 'string') return raw;
      if (raw instanceof Blob) return await raw.text();
      return JSON.stringify(raw);
    } catch (error) {
      if (isStatus(error, 404)) return undefined;
      throw error;
    }
  }

  async listPipelines(project: ProjectRef, filter: PipelineFilter = {}) {
    const raw = await this.api.Pipelines.all(project, {
      ...(filter.ref ? { ref: filter.ref } : {}),
      ...(filter.status ? { status: filter.status as 'running' } : {}),
      ...(filter.source ? { source: filter.source } : {}),
      ...PAGE,
      maxPages: 1,
    });
    return parseAnswer(z.array(PipelineSchema), raw, 'pipelines').map(toPipeline);
  }

  async pipelineVariables(project: ProjectRef, pipelineId: number) {
    const raw = await this.api.Pipelines.allVariables(project, pipelineId);
    const vars = parseAnswer(z.array(PipelineVariableSchema), raw, 'pipeline variables');
    return Object.fromEntries(vars.map((v) => [v.key, v.value]));
  }

  async listPipelineJobs(project: ProjectRef, pipelineId: number) {
    const raw = await this.api.Jobs.all(project, { pipelineId, ...PAGE });
    return parseAnswer(z.array(JobSchema), raw, 'jobs').map(toJob);
  }

  /** Cancelling twice does no harm: after a lost answer it is simply sent again. */
  cancelPipeline(project: ProjectRef, pipelineId: number) {
    return this.writer.run({
      what: 'POST cancel pipeline',
      write: () => posts.cancelPipeline(this.api, project, pipelineId),
      landed: () => Promise.resolve(undefined),
    });
  }

  /** A pipeline trigger (posts.ts); after a lost answer, looked for by its variables. */
  triggerPipeline(project: ProjectRef, request: TriggerRequest) {
    return this.writer.run({
      what: 'POST trigger pipeline',
      write: () => posts.trigger(this.api, project, request),
      landed: () => landedTrigger(this, project, request),
    });
  }

  async downloadJobArtifacts(project: ProjectRef, jobId: number) {
    return blobToBytes(await this.api.JobArtifacts.downloadArchive(project, { jobId }));
  }
}
