/**
 * The stand-in's state: the core model (model-core.ts) plus pipelines, jobs,
 * their artifacts and pipeline trigger tokens.
 */
import { randomBytes } from 'node:crypto';
import { zipSync } from 'fflate';
import { fetchRef, revParse } from './git.ts';
import { CoreModel } from './model-core.ts';
import { ReviewState } from './review-state.ts';
import type {
  CiVariableRec,
  JobRec,
  MergeRequestRec,
  PipelineRec,
  PipelineStatus,
  ProjectRec,
  TokenRec,
  TriggerTokenRec,
} from './records.ts';

export const TERMINAL: readonly PipelineStatus[] = ['success', 'failed', 'canceled', 'skipped'];

export interface NewPipeline {
  project: ProjectRec;
  ref: string;
  source?: string;
  status?: PipelineStatus;
  variables?: Record<string, string>;
  inputs?: Record<string, string>;
  name?: string | null;
  userId: number;
  jobs?: string[];
}

export class GitLabModel extends CoreModel {
  readonly pipelines: PipelineRec[] = [];
  readonly jobs: JobRec[] = [];
  readonly triggerTokens: TriggerTokenRec[] = [];
  /** Jobs a triggered pipeline gets. */
  triggeredJobs: string[] = ['mr-agent'];
  /**
   * Some GitLab versions count the `TRIGGER_PAYLOAD` variable they add to every
   * trigger-token pipeline as a pipeline variable the caller set, so "Minimum
   * role to use pipeline variables" refuses even a trigger that sends inputs
   * only (a GitLab bug on some versions, see docs/gitlab.md). Off by default, as on a fixed version.
   */
  triggerPayloadCountsAsVariable = false;
  /** What `GET /version` answers (doc/api/version.md), e.g. an older instance's "15.4.2-ee". */
  gitlabVersion = '18.4.0-standin';
  readonly ciVariables: CiVariableRec[] = [];
  /** Diff versions, diff-note positions, resolved threads and suggestions. */
  readonly review = new ReviewState();

  /** A project CI/CD variable (Settings → CI/CD → Variables); protected by default, as GitLab's form. */
  addCiVariable(
    project: ProjectRec,
    key: string,
    value: string,
    options: { protected?: boolean } = {},
  ): CiVariableRec {
    const rec = { projectId: project.id, key, value, protected: options.protected ?? true };
    this.ciVariables.push(rec);
    return rec;
  }

  /**
   * Whether `ref` is a protected ref of the project: a branch (`main` or
   * `refs/heads/main`) matching a protected branch name or `*` pattern.
   * Merge request refs and anything else are not.
   */
  isProtectedRef(project: ProjectRec, ref: string): boolean {
    if (ref.startsWith('refs/') && !ref.startsWith('refs/heads/')) return false;
    const branch = ref.replace(/^refs\/heads\//, '');
    return this.protectedBranches
      .filter((b) => b.projectId === project.id)
      .some((b) => wildcard(b.name).test(branch));
  }

  /**
   * The variables a job of `pipeline` is given from the project: its
   * unprotected CI/CD variables, the protected ones only on a protected ref,
   * and `CI_COMMIT_REF_PROTECTED`.
   */
  jobVariables(pipeline: PipelineRec): Record<string, string> {
    const visible = this.ciVariables.filter(
      (v) => v.projectId === pipeline.projectId && (!v.protected || pipeline.protectedRef),
    );
    return {
      ...Object.fromEntries(visible.map((v) => [v.key, v.value])),
      CI_COMMIT_REF_PROTECTED: String(pipeline.protectedRef),
    };
  }

  /**
   * Writes the merge request's head to `refs/merge-requests/<iid>/head` of
   * the target project, as GitLab does on every push to the source branch
   * (a fork's included). Returns the ref.
   */
  async updateMergeRequestRef(mr: MergeRequestRec): Promise<string> {
    const target = this.projects.get(mr.projectId)!;
    const source = this.projects.get(mr.sourceProjectId) ?? target;
    const ref = `refs/merge-requests/${mr.iid}/head`;
    await fetchRef(target.repoDir, source.repoDir, mr.sourceBranch, ref);
    return ref;
  }

  addTriggerToken(project: ProjectRec, ownerId: number, value?: string): TriggerTokenRec {
    const rec = {
      id: this.nextId(),
      projectId: project.id,
      value: value ?? `glptt-${randomBytes(10).toString('hex')}`,
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
      inputs: input.inputs ?? {},
      name: input.name ?? null,
      protectedRef: this.isProtectedRef(input.project, input.ref),
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
      value: `glcbt-${randomBytes(10).toString('hex')}`,
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
}

/** A protected branch name or pattern (`*` matches any text) as a whole-name match. */
function wildcard(pattern: string): RegExp {
  const parts = pattern.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('.*')}$`);
}
