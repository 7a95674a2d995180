/**
 * Delivery (docs/run.md): commit the change with a clear message and push it to
 * the merge request's source branch; for an issue, push a new branch and open
 * a draft merge request that closes the issue. A push rejected as
 * non-fast-forward is rebased once. No work is ever lost: the
 * patch is kept as `.mr-agent/patch.diff` in the artifacts, and a change that
 * cannot go where it belongs — the default or a protected branch, a push
 * refused by a hook or for want of permission, a branch that does not rebase,
 * a fork that does not allow commits from members — goes elsewhere
 * (elsewhere.ts): a new branch with a merge request into the branch it was
 * meant for, or a patch note.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Issue, MergeRequest } from '../../core/gitlab-port.ts';
import { escapeQuickActions, escapeQuickActionsInPlainText } from '../../report/markdown.ts';
import { forbiddenReason, issueBranchName } from './branches.ts';
import { deliverElsewhere, postPatch, type Elsewhere } from './elsewhere.ts';
import type { NotPushedWhy } from './patch-note.ts';
import { deliveryGit, type Git } from './git.ts';
import { assertGitControlUnchanged } from './git-guard.ts';
import { attemptPush } from './push-attempt.ts';
import { stageChanges } from './stage.ts';
import { blocksDelivery, scanChange, secretWithheldError, stagedFiles } from './secret-scan.ts';
import type { DeliveredMergeRequest, DeliveryInput, DeliveryResult } from './types.ts';

export type {
  DeliveredMergeRequest,
  DeliveryInput,
  DeliveryResult,
  DeliveryTarget,
} from './types.ts';

/** The commit message before redaction (scanned for secrets, then redacted). */
function rawCommitMessage(input: DeliveryInput): string {
  const closes = input.target.kind === 'issue' ? `\n\nCloses #${input.target.issue.iid}` : '';
  const body = input.commit.body?.trim() ? `\n\n${input.commit.body.trim()}` : '';
  return `${input.commit.title.trim()}${body}${closes}`;
}

/**
 * Stages every change except the state folder from contents the agent reads
 * itself (stage.ts: no filter or submodule of the checkout is ever run),
 * scans the staged change and the message for secrets (a hit blocks the
 * commit: secret-scan.ts) and commits; undefined when nothing changed.
 */
async function commitChanges(git: Git, input: DeliveryInput): Promise<string | undefined> {
  const stateDir = input.stateDir ?? '.mr-agent';
  const { skipped } = await stageChanges(git, input.repoDir, stateDir, input.checkout.read);
  if (skipped.length > 0) input.logger.warn('changes not delivered', { skipped });
  const staged = await git.run(['diff', '--cached', '--quiet']);
  if (staged.exitCode === 0) return undefined;
  const message = rawCommitMessage(input);
  await refuseSecrets(git, input, message);
  await git.must(
    ['commit', '--no-verify', '-F', '-'],
    escapeQuickActionsInPlainText(input.redactor.redact(message)),
  );
  return (await git.must(['rev-parse', 'HEAD'])).trim();
}

/** Throws when the staged change or the message holds a secret; the artifact keeps the rest. */
async function refuseSecrets(git: Git, input: DeliveryInput, message: string): Promise<void> {
  const files = await stagedFiles(git, input.repoDir, input.checkout.read);
  const finding = scanChange(files, message, input.redactor);
  if (!blocksDelivery(finding)) return;
  const withheld = new Set([...finding.files, ...finding.unscanned]);
  const clean = files.filter((f) => !withheld.has(f.path)).map((f) => f.diff);
  await writePatch(input, input.redactor.redact(clean.join('')));
  await git.run(['reset', '-q']);
  input.logger.warn('secret withheld', { ...finding });
  throw secretWithheldError(finding);
}

async function writePatch(input: DeliveryInput, diff: string): Promise<string> {
  const stateDir = input.stateDir ?? '.mr-agent';
  await mkdir(path.join(input.repoDir, stateDir), { recursive: true });
  await writeFile(path.join(input.repoDir, stateDir, 'patch.diff'), diff);
  return `${stateDir}/patch.diff`;
}

/** The commit as a patch in the state folder (job artifacts), whatever happens next. */
async function keepPatch(git: Git, input: DeliveryInput, commit: string): Promise<string> {
  const diff = input.redactor.redact(
    await git.must(['show', '--format=', '--no-color', '--no-ext-diff', '--no-textconv', commit]),
  );
  return writePatch(input, diff);
}

function gitFor(input: DeliveryInput, remoteUrl: string): Git {
  return deliveryGit(input.checkout, {
    shell: input.shell,
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
  const target = input.target;
  if (target.kind === 'merge_request' && target.mergeRequest.isFork)
    return deliverFork(input, target.mergeRequest);
  const branch =
    target.kind === 'issue'
      ? issueBranchName(input.branchPrefix, target.issue)
      : target.kind === 'branch'
        ? target.branch
        : target.mergeRequest.sourceBranch;
  return deliverTo(input, branch);
}

/** Commits and pushes to `branch`; when it cannot go there, elsewhere. */
async function deliverTo(input: DeliveryInput, branch: string): Promise<DeliveryResult> {
  const git = gitFor(input, input.project.httpUrlToRepo);
  const commit = await commitChanges(git, input);
  if (!commit) return { status: 'no-changes' };
  const patchPath = await keepPatch(git, input, commit);
  if (input.patchOnly !== undefined) {
    return postPatch(input, git, {
      intendedBranch: branch,
      reason: input.patchOnly,
      commit,
      patchPath,
    });
  }
  const forbidden = await forbiddenReason(input.gitlab, input.project, branch);
  const attempt = await attemptPush(input, git, input.project.httpUrlToRepo, branch, forbidden);
  if ('pushed' in attempt) {
    const { pushed } = attempt;
    const mergeRequest =
      input.target.kind === 'issue'
        ? await issueMergeRequest(input, input.target.issue, branch)
        : undefined;
    input.logger.info('change pushed', { branch, ...pushed });
    return { status: 'pushed', branch, ...pushed, mergeRequest };
  }
  const where: Elsewhere = { intendedBranch: branch, reason: attempt.refused, commit, patchPath };
  return deliverElsewhere(input, git, where);
}

/** The open merge request of the branch (from an earlier run), or a new draft that closes the issue. */
async function issueMergeRequest(
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
    description: escapeQuickActions(
      input.redactor.redact(
        `Closes #${issue.iid}\n\n${input.commit.body?.trim() || input.commit.title}\n\n_Opened by mr-agent._`,
      ),
    ),
    draft: true,
    removeSourceBranch: true,
  });
  return { iid: created.iid, webUrl: created.webUrl, created: true };
}

/**
 * A fork: pushed to when the merge request allows commits from members and
 * GitLab accepts; otherwise a patch note (a merge request into a fork's
 * branch cannot be opened from this project).
 */
async function deliverFork(input: DeliveryInput, mr: MergeRequest): Promise<DeliveryResult> {
  let reason =
    input.patchOnly ??
    'the merge request comes from a fork that does not allow commits from members';
  let why: NotPushedWhy | undefined =
    input.patchOnly !== undefined ? input.patchOnlyWhy : { kind: 'fork-no-collaboration' };
  let remoteUrl = '';
  if (mr.allowCollaboration && input.patchOnly === undefined) {
    try {
      const fork = await input.gitlab.getProject(mr.sourceProjectId);
      const forbidden = await forbiddenReason(input.gitlab, fork, mr.sourceBranch);
      why = undefined;
      if (forbidden) reason = forbidden;
      else remoteUrl = fork.httpUrlToRepo;
    } catch (error) {
      reason = `the fork cannot be pushed to (${(error as Error).message})`;
    }
  }
  const git = gitFor(input, remoteUrl || input.project.httpUrlToRepo);
  const commit = await commitChanges(git, input);
  if (!commit) return { status: 'no-changes' };
  const patchPath = await keepPatch(git, input, commit);
  if (remoteUrl) {
    const attempt = await attemptPush(input, git, remoteUrl, mr.sourceBranch);
    if ('pushed' in attempt)
      return {
        status: 'pushed',
        branch: mr.sourceBranch,
        ...attempt.pushed,
        mergeRequest: undefined,
      };
    reason = `the push to the fork was refused (${attempt.refused})`;
  }
  return postPatch(input, git, {
    intendedBranch: mr.sourceBranch,
    reason,
    ...(why ? { why } : {}),
    commit,
    patchPath,
  });
}
