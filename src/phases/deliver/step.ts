/**
 * Delivery as the run sees it (`DeliveryStep`, src/run/ports.ts): the commit
 * message comes from the plan's objective and the completion summary, and
 * `deliver()` commits and pushes.
 */
import type { ChangeToDeliver, DeliveryStep } from '../../core/ports.ts';
import type { DeliveryReport } from '../../core/records.ts';
import { cutText } from '../../core/text.ts';
import { deliver, type DeliveryInput, type DeliveryResult } from './deliver.ts';
import { snapshotGitControl } from './git-guard.ts';

const TITLE_CHARS = 72;

/** A commit title of one line, at most 72 characters. */
export function commitTitle(objective: string): string {
  const line = objective.trim().split('\n')[0]!.trim().replace(/\.$/, '');
  return cutText(line, TITLE_CHARS).replace(/\s+…$/, '…');
}

function commitBody(change: ChangeToDeliver, footer: string | undefined): string {
  const files = change.changedFiles.length
    ? `Files changed: ${change.changedFiles.join(', ')}`
    : '';
  return [change.summary.trim(), files, footer ?? ''].filter(Boolean).join('\n\n');
}

/** The run's view of a delivery result. */
export function deliveryReport(
  result: DeliveryResult,
  commitUrl: (sha: string) => string | undefined,
): DeliveryReport {
  switch (result.status) {
    case 'disabled':
    case 'no-changes':
      return { status: result.status };
    case 'pushed': {
      const url = commitUrl(result.commit);
      return {
        status: 'pushed',
        branch: result.branch,
        commit: result.commit,
        ...(url ? { commitUrl: url } : {}),
        ...(result.mergeRequest ? { mergeRequestUrl: result.mergeRequest.webUrl } : {}),
      };
    }
    case 'pushed-elsewhere': {
      const url = commitUrl(result.commit);
      return {
        status: 'pushed-elsewhere',
        branch: result.branch,
        commit: result.commit,
        ...(url ? { commitUrl: url } : {}),
        ...(result.mergeRequest ? { mergeRequestUrl: result.mergeRequest.webUrl } : {}),
        intendedBranch: result.intendedBranch,
        notPushedReason: result.mergeRequestRefused
          ? `${result.reason}; no merge request could be opened (${result.mergeRequestRefused})`
          : result.reason,
        patchPath: result.patchPath,
      };
    }
    case 'patch-posted':
      return {
        status: 'patch-posted',
        branch: result.branch,
        commit: result.commit,
        ...(result.noteUrl ? { patchNoteUrl: result.noteUrl } : {}),
        notPushedReason: result.reason,
        patchPath: result.patchPath,
      };
  }
}

export interface DeliveryStepOptions extends Omit<DeliveryInput, 'commit'> {
  author: { name: string; email: string };
  /** A last paragraph of the commit message, e.g. who asked for the change. */
  footer?: string;
}

/**
 * A `DeliveryStep` over `deliver()`. It takes the snapshot of the checkout's
 * git control files when it is created — before the run, so before any tool
 * can write into `.git` — and delivery refuses to push if they changed.
 */
export function createDeliveryStep(options: DeliveryStepOptions): DeliveryStep {
  const { author, footer, ...input } = options;
  const gitControl = input.gitControl
    ? Promise.resolve(input.gitControl)
    : snapshotGitControl(input.repoDir).catch(() => undefined);
  const commitUrl = (sha: string) =>
    input.project.webUrl ? `${input.project.webUrl}/-/commit/${sha}` : undefined;
  return {
    async deliver(change, signal) {
      const snapshot = await gitControl;
      const result = await deliver({
        ...input,
        ...(signal ? { signal } : {}),
        ...(snapshot ? { gitControl: snapshot } : {}),
        ...(change.patchOnly !== undefined ? { patchOnly: change.patchOnly } : {}),
        commit: {
          title: commitTitle(change.objective),
          body: commitBody(change, footer),
          author,
        },
      });
      return deliveryReport(result, commitUrl);
    },
  };
}
