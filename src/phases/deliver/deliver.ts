/**
 * Delivery (SPEC H3): commit the change with a clear message and push it to
 * the merge request's source branch; for an issue, push a new branch and open
 * a draft merge request that closes the issue. Never the default or a
 * protected branch. A fork the agent cannot push to gets the diff as a patch
 * note. A push rejected as non-fast-forward is rebased once, then reported.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CommandFailedError } from '../../errors/errors.ts';
import type { GitLabPort, Issue, MergeRequest, Project } from '../../core/gitlab-port.ts';
import type { Logger } from '../../log/logger.ts';
import type { Redactor } from '../../log/redact.ts';
import type { NoteMarker } from '../../core/marker.ts';
import type { Language } from '../../core/messages/language.ts';
import type { NoteTarget } from '../../core/note-target.ts';
import { issueBranchName, refuseForbiddenBranch } from './branches.ts';
import { Git } from './git.ts';
import { assertGitControlUnchanged, type GitControlSnapshot } from './git-guard.ts';
import { renderPatchNote } from './patch-note.ts';
import { pushWithOneRebase } from './push.ts';

export type DeliveryTarget =
  | { kind: 'merge_request'; mergeRequest: MergeRequest }
  | { kind: 'issue'; issue: Issue }
  /** A run asked for on a branch with neither merge request nor issue (a manual or API run). */
  | { kind: 'branch'; branch: string };

export interface DeliveryInput {
  /** The checkout holding the agent's changes. */
  repoDir: string;
  gitlab: GitLabPort;
  /** The project the pipeline runs in (target of merge requests). */
  project: Project;
  target: DeliveryTarget;
  /** Where a patch note goes (the MR). */
  notes: NoteTarget;
  /** Token for HTTPS pushes (`api` or `write_repository` scope). */
  token: string;
  hostEnv: Readonly<Record<string, string | undefined>>;
  commit: { title: string; body?: string; author: { name: string; email: string } };
  /** `delivery.branch_prefix` */
  branchPrefix: string;
  /** `delivery.push`: false commits nothing and pushes nothing. */
  push?: boolean;
  /** State folder (never committed), e.g. `.mr-agent`. */
  stateDir?: string;
  /** job/pipeline/task for the patch note's marker. */
  marker?: Omit<NoteMarker, 'kind'>;
  /** The patch note's language. */
  language?: Language;
  redactor: Redactor;
  logger: Logger;
  /**
   * The checkout's git control files as they were before any tool ran
   * (`snapshotGitControl`); when given, delivery refuses to go on if the run
   * changed them.
   */
  gitControl?: GitControlSnapshot;
}

export interface DeliveredMergeRequest {
  iid: number;
  webUrl: string;
  created: boolean;
}

export type DeliveryResult =
  | { status: 'disabled' }
  | { status: 'no-changes' }
  | {
      status: 'pushed';
      branch: string;
      commit: string;
      rebased: boolean;
      mergeRequest: DeliveredMergeRequest | undefined;
    }
  | { status: 'patch-posted'; branch: string; noteId: string; reason: string; commit: string };

function commitMessage(input: DeliveryInput): string {
  const closes = input.target.kind === 'issue' ? `\n\nCloses #${input.target.issue.iid}` : '';
  const body = input.commit.body?.trim() ? `\n\n${input.commit.body.trim()}` : '';
  return input.redactor.redact(`${input.commit.title.trim()}${body}${closes}`);
}

/** Stages everything except the state folder and commits; undefined when nothing changed. */
async function commitChanges(git: Git, input: DeliveryInput): Promise<string | undefined> {
  const stateDir = input.stateDir ?? '.mr-agent';
  await git.must(['add', '-A', '--', '.']);
  // unstage the state folder again: an exclude pathspec would fail when .gitignore already ignores it
  await git.must(['reset', '-q', '--', stateDir]);
  const staged = await git.run(['diff', '--cached', '--quiet']);
  if (staged.exitCode === 0) return undefined;
  await git.must(['commit', '--no-verify', '-F', '-'], commitMessage(input));
  return (await git.must(['rev-parse', 'HEAD'])).trim();
}

function gitFor(input: DeliveryInput, remoteUrl: string): Git {
  return new Git({
    cwd: input.repoDir,
    hostEnv: input.hostEnv,
    redactor: input.redactor,
    logger: input.logger,
    token: input.token,
    remoteUrl,
    identity: input.commit.author,
  });
}

export async function deliver(input: DeliveryInput): Promise<DeliveryResult> {
  if (input.push === false) {
    input.logger.info('delivery skipped', { reason: 'delivery.push is false' });
    return { status: 'disabled' };
  }
  if (input.gitControl) await assertGitControlUnchanged(input.repoDir, input.gitControl);
  if (input.target.kind === 'issue') return deliverIssue(input, input.target.issue);
  if (input.target.kind === 'branch') return deliverToBranch(input, input.target.branch);
  const mr = input.target.mergeRequest;
  if (mr.isFork) return deliverFork(input, mr);
  return deliverToBranch(input, mr.sourceBranch);
}

/** Commits and pushes to a branch of the project that is neither the default nor protected. */
async function deliverToBranch(input: DeliveryInput, branch: string): Promise<DeliveryResult> {
  await refuseForbiddenBranch(input.gitlab, input.project, branch);
  const git = gitFor(input, input.project.httpUrlToRepo);
  const commit = await commitChanges(git, input);
  if (!commit) return { status: 'no-changes' };
  const pushed = await pushWithOneRebase(git, input.project.httpUrlToRepo, branch, input.redactor);
  input.logger.info('change pushed', { branch, commit: pushed.commit, rebased: pushed.rebased });
  return { status: 'pushed', branch, ...pushed, mergeRequest: undefined };
}

async function deliverIssue(input: DeliveryInput, issue: Issue): Promise<DeliveryResult> {
  const branch = issueBranchName(input.branchPrefix, issue);
  await refuseForbiddenBranch(input.gitlab, input.project, branch);
  const git = gitFor(input, input.project.httpUrlToRepo);
  const commit = await commitChanges(git, input);
  if (!commit) return { status: 'no-changes' };
  const pushed = await pushWithOneRebase(git, input.project.httpUrlToRepo, branch, input.redactor);
  const mergeRequest = await draftMergeRequest(input, issue, branch);
  input.logger.info('change pushed', {
    branch,
    commit: pushed.commit,
    mergeRequest: mergeRequest.iid,
  });
  return { status: 'pushed', branch, ...pushed, mergeRequest };
}

/** The open merge request of the branch (from an earlier run), or a new draft that closes the issue. */
async function draftMergeRequest(
  input: DeliveryInput,
  issue: Issue,
  branch: string,
): Promise<DeliveredMergeRequest> {
  const existing = await input.gitlab.findMergeRequests(input.project.id, {
    sourceBranch: branch,
    state: 'opened',
  });
  if (existing[0]) return { iid: existing[0].iid, webUrl: existing[0].webUrl, created: false };
  const created = await input.gitlab.createMergeRequest(input.project.id, {
    sourceBranch: branch,
    targetBranch: input.project.defaultBranch,
    title: `Resolve "${issue.title}"`,
    description: input.redactor.redact(
      `Closes #${issue.iid}\n\n${input.commit.body?.trim() || input.commit.title}\n\n_Opened by mr-agent._`,
    ),
    draft: true,
    removeSourceBranch: true,
  });
  return { iid: created.iid, webUrl: created.webUrl, created: true };
}

/** A fork: push to it when the MR allows collaboration and GitLab accepts; otherwise a patch note. */
async function deliverFork(input: DeliveryInput, mr: MergeRequest): Promise<DeliveryResult> {
  let reason = 'the merge request comes from a fork that does not allow commits from members';
  let remoteUrl = input.project.httpUrlToRepo;
  if (mr.allowCollaboration) {
    try {
      const fork = await input.gitlab.getProject(mr.sourceProjectId);
      await refuseForbiddenBranch(input.gitlab, fork, mr.sourceBranch);
      remoteUrl = fork.httpUrlToRepo;
    } catch (error) {
      reason = `the fork cannot be pushed to (${(error as Error).message})`;
      remoteUrl = '';
    }
  }
  const git = gitFor(input, remoteUrl || input.project.httpUrlToRepo);
  const commit = await commitChanges(git, input);
  if (!commit) return { status: 'no-changes' };
  if (mr.allowCollaboration && remoteUrl) {
    try {
      const pushed = await pushWithOneRebase(git, remoteUrl, mr.sourceBranch, input.redactor);
      return { status: 'pushed', branch: mr.sourceBranch, ...pushed, mergeRequest: undefined };
    } catch (error) {
      if (!(error instanceof CommandFailedError)) throw error;
      reason = `the push to the fork was refused (${error.message})`;
    }
  }
  return postPatch(input, git, mr, commit, reason);
}

async function postPatch(
  input: DeliveryInput,
  git: Git,
  mr: MergeRequest,
  commit: string,
  reason: string,
): Promise<DeliveryResult> {
  const diff = input.redactor.redact(
    await git.must(['show', '--format=', '--no-color', '--no-ext-diff', commit]),
  );
  const files = (await git.must(['show', '--format=', '--name-only', commit]))
    .split('\n')
    .filter(Boolean);
  const stateDir = input.stateDir ?? '.mr-agent';
  const artifactPath = `${stateDir}/patch.diff`;
  await mkdir(path.join(input.repoDir, stateDir), { recursive: true });
  await writeFile(path.join(input.repoDir, artifactPath), diff);
  const body = renderPatchNote({
    marker: input.marker ?? {},
    branch: mr.sourceBranch,
    reason,
    diff,
    filesChanged: files.length,
    artifactPath,
    redactor: input.redactor,
    ...(input.language ? { language: input.language } : {}),
  });
  const note = await input.notes.createNote(body);
  input.logger.info('patch posted', {
    branch: mr.sourceBranch,
    noteId: note.id,
    files: files.length,
  });
  return { status: 'patch-posted', branch: mr.sourceBranch, noteId: note.id, reason, commit };
}
