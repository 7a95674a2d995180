/** What delivery takes and what it ends with (deliver.ts, elsewhere.ts). */
import type { CheckoutPort } from '../../core/checkout-port.ts';
import { CancelledError } from '../../errors/errors.ts';
import type { GitLabPort, Issue, MergeRequest, Project } from '../../core/gitlab-port.ts';
import type { Logger } from '../../log/logger.ts';
import type { Redactor } from '../../log/redact.ts';
import type { Language } from '../../messages/language.ts';
import type { NoteMarker } from '../../report/marker.ts';
import type { NoteTarget } from '../../core/note-target.ts';
import type { Shell } from '../../core/shell-port.ts';
import type { GitControlSnapshot } from './git-guard.ts';
import type { NotPushedWhy } from './patch-note.ts';

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
  /** The shell git runs through. */
  shell: Shell;
  /** Git and the reader of the checkout's files. */
  checkout: CheckoutPort;
  commit: { title: string; body?: string; author: { name: string; email: string } };
  /** `delivery.branch_prefix` */
  branchPrefix: string;
  /** `delivery.push`: false commits nothing and pushes nothing. */
  push?: boolean;
  /** State folder (never committed), e.g. `.mr-agent`. */
  stateDir?: string;
  /** job/pipeline/task for the patch note's marker; the job names the fallback branch. */
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
  /** Once aborted (the job was cancelled), nothing more is pushed, opened or posted. */
  signal?: AbortSignal;
  /**
   * A fork's merge request gets a patch note, never a push, and this is why
   * (its code was not run, so the change is untested; docs/security.md,
   * "A fork's code and the project's secrets").
   */
  patchOnly?: string;
  /** What the patch note says about `patchOnly` in the note's language. */
  patchOnlyWhy?: NotPushedWhy;
  /** Who asked for the run: a patch note, the run's closing note then, @mentions them. */
  requester?: string;
}

/** Throws once the job is cancelled: called before every push, merge request and note. */
export function stopIfCancelled(input: Pick<DeliveryInput, 'signal'>): void {
  if (input.signal?.aborted) throw new CancelledError('the job was cancelled before delivery');
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
  /** Not where it belongs (`intendedBranch`, `reason`), but on `branch`, with a merge request into it when GitLab allowed one. */
  | {
      status: 'pushed-elsewhere';
      branch: string;
      intendedBranch: string;
      reason: string;
      commit: string;
      mergeRequest: DeliveredMergeRequest | undefined;
      /** Why no merge request was opened, when none was. */
      mergeRequestRefused?: string;
      patchPath: string;
    }
  | {
      status: 'patch-posted';
      /** The branch the change was meant for. */
      branch: string;
      noteId: string;
      noteUrl?: string;
      reason: string;
      commit: string;
      patchPath: string;
    };
