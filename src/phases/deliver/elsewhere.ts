/**
 * Where a change goes when it cannot go where it belongs (a refused push, a protected branch): a
 * new branch `<prefix><iid>-<job>` with a draft merge request into the
 * branch it was meant for; when that branch is refused too, a patch note (a
 * ```diff block with `git apply` instructions) on the merge request or
 * issue. The patch is in the artifacts either way (`.mr-agent/patch.diff`).
 */
import { ExternalServiceError } from '../../errors/errors.ts';
import { escapeQuickActions, inlineCode } from '../../report/markdown.ts';
import { branchSlug, forbiddenReason } from './branches.ts';
import {
  stopIfCancelled,
  type DeliveredMergeRequest,
  type DeliveryInput,
  type DeliveryResult,
} from './types.ts';
import type { Git } from './git.ts';
import { renderPatchNote, type NotPushedWhy } from './patch-note.ts';
import { attemptPush } from './push-attempt.ts';

export interface Elsewhere {
  /** The branch the change was meant for. */
  intendedBranch: string;
  /** Why it is not there. */
  reason: string;
  /** The same, when the message catalog can say it in the note's language. */
  why?: NotPushedWhy;
  commit: string;
  /** The patch in the artifacts, e.g. `.mr-agent/patch.diff`. */
  patchPath: string;
}

/** `mr-agent/12-4711`: the request's number and the job (the commit when there is no job). */
export function fallbackBranch(input: DeliveryInput, commit: string): string {
  const run = input.marker?.job ?? commit.slice(0, 10);
  const target = input.target;
  const what =
    target.kind === 'merge_request'
      ? String(target.mergeRequest.iid)
      : target.kind === 'issue'
        ? String(target.issue.iid)
        : branchSlug(target.branch);
  return `${input.branchPrefix}${what}-${run}`;
}

/** A new branch and a merge request into the intended branch; else a patch note. */
export async function deliverElsewhere(
  input: DeliveryInput,
  git: Git,
  where: Elsewhere,
): Promise<DeliveryResult> {
  const branch = fallbackBranch(input, where.commit);
  input.logger.warn('change not delivered where it belongs', {
    branch: where.intendedBranch,
    reason: where.reason,
    fallback: branch,
  });
  const forbidden =
    branch === where.intendedBranch
      ? 'it is the same branch'
      : await forbiddenReason(input.gitlab, input.project, branch);
  const attempt = await attemptPush(input, git, input.project.httpUrlToRepo, branch, forbidden);
  if ('pushed' in attempt) {
    const { pushed } = attempt;
    const opened = await openMergeRequest(input, branch, where);
    input.logger.info('change pushed elsewhere', { branch, commit: pushed.commit });
    return {
      status: 'pushed-elsewhere',
      branch,
      intendedBranch: where.intendedBranch,
      reason: where.reason,
      commit: pushed.commit,
      patchPath: where.patchPath,
      ...opened,
    };
  }
  const reason = `${where.reason}; the branch ${inlineCode(branch)} was refused too (${attempt.refused})`;
  return postPatch(input, git, { ...where, reason });
}

function mergeTarget(input: DeliveryInput, where: Elsewhere): string {
  return input.target.kind === 'issue' ? input.project.defaultBranch : where.intendedBranch;
}

function description(input: DeliveryInput, where: Elsewhere): string {
  const target = input.target;
  const asked =
    target.kind === 'merge_request'
      ? `!${target.mergeRequest.iid}`
      : target.kind === 'issue'
        ? `#${target.issue.iid}`
        : `a pipeline on ${inlineCode(target.branch)}`;
  const closes = target.kind === 'issue' ? `Closes #${target.issue.iid}\n\n` : '';
  const text = [
    `${closes}mr-agent could not push the change asked for in ${asked} to ` +
      `${inlineCode(where.intendedBranch)}: ${where.reason}.`,
    `Merging this merge request brings it into ${inlineCode(mergeTarget(input, where))}.`,
    input.commit.body?.trim() || input.commit.title,
    '_Opened by mr-agent._',
  ].join('\n\n');
  return escapeQuickActions(input.redactor.redact(text));
}

/** The open merge request from `branch` into the intended branch, or a new draft; GitLab may refuse. */
async function openMergeRequest(
  input: DeliveryInput,
  branch: string,
  where: Elsewhere,
): Promise<{ mergeRequest: DeliveredMergeRequest | undefined; mergeRequestRefused?: string }> {
  const targetBranch = mergeTarget(input, where);
  try {
    const open = await input.gitlab.findMergeRequests(input.project.id, {
      sourceBranch: branch,
      state: 'opened',
    });
    const existing = open.find((m) => m.targetBranch === targetBranch);
    if (existing)
      return { mergeRequest: { iid: existing.iid, webUrl: existing.webUrl, created: false } };
    const created = await input.gitlab.createMergeRequest(input.project.id, {
      sourceBranch: branch,
      targetBranch,
      title: input.redactor.redact(input.commit.title),
      description: description(input, where),
      draft: true,
      removeSourceBranch: true,
    });
    return { mergeRequest: { iid: created.iid, webUrl: created.webUrl, created: true } };
  } catch (error) {
    if (!(error instanceof ExternalServiceError)) throw error;
    input.logger.warn('no merge request for the change', { branch, error: error.message });
    return { mergeRequest: undefined, mergeRequestRefused: error.message };
  }
}

/** The change as a patch note on the merge request or issue. */
export async function postPatch(
  input: DeliveryInput,
  git: Git,
  where: Elsewhere,
): Promise<DeliveryResult> {
  stopIfCancelled(input);
  const diff = input.redactor.redact(
    await git.must([
      'show',
      '--format=',
      '--no-color',
      '--no-ext-diff',
      '--no-textconv',
      where.commit,
    ]),
  );
  const files = (await git.must(['show', '--format=', '--name-only', where.commit]))
    .split('\n')
    .filter(Boolean);
  const body = renderPatchNote({
    marker: input.marker ?? {},
    branch: where.intendedBranch,
    reason: where.reason,
    ...(where.why ? { why: where.why } : {}),
    diff,
    filesChanged: files.length,
    artifactPath: where.patchPath,
    redactor: input.redactor,
    ...(input.language ? { language: input.language } : {}),
    ...(input.requester ? { requester: input.requester } : {}),
  });
  const note = await input.notes.createNote(body);
  input.logger.info('patch posted', {
    branch: where.intendedBranch,
    noteId: note.id,
    files: files.length,
  });
  return {
    status: 'patch-posted',
    branch: where.intendedBranch,
    noteId: note.id,
    ...(note.url ? { noteUrl: note.url } : {}),
    reason: where.reason,
    commit: where.commit,
    patchPath: where.patchPath,
  };
}
