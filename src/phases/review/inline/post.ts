/**
 * Posts a review of a merge request's change the GitLab way: each finding a
 * thread on its diff lines in the latest version, a suggestion where the
 * reviewer gave a fix whose lines are all in one hunk (so it applies), one
 * thread per finding identity across re-reviews, and the threads of findings
 * that are gone — no longer reported, and their lines changed — answered and
 * resolved. A position GitLab refuses (400) is
 * never lost: the finding goes into one comment listing such findings, and
 * the summary links it.
 */
import { ExternalServiceError } from '../../../errors/errors.ts';
import type {
  ChangedFile,
  DiffVersion,
  Discussion,
  GitLabPort,
  ProjectRef,
} from '../../../core/gitlab-port.ts';
import type { Redactor } from '../../../log/redact.ts';
import type { Language } from '../../../messages/language.ts';
import {
  findingIdentityOf,
  findingLinesOf,
  renderFindingThread,
  renderFixedReply,
  renderReviewSummary,
  renderUnplacedFindings,
  type UnplacedFinding,
} from '../../../report/notes/review-note.ts';
import {
  anchorFinding,
  anchoredLinesFingerprint,
  fileHoldsLines,
  findingIdentity,
} from './anchor.ts';
import { SEVERITIES, type InlineReview, type ReviewFinding, type Severity } from './findings.ts';
import type { SkipReason } from './skip.ts';

export type ReviewGitLab = Pick<
  GitLabPort,
  | 'listDiscussions'
  | 'createNote'
  | 'replyToDiscussion'
  | 'listDiffVersions'
  | 'createDiffDiscussion'
  | 'resolveDiscussion'
>;

export interface ReviewPostTarget {
  gitlab: ReviewGitLab;
  project: ProjectRef;
  iid: number;
  botUserId: number;
  /** The merge request's page; a thread's link is its note's anchor there. */
  webUrl: string;
  redactor: Redactor;
  language?: Language | undefined;
  /**
   * A file of the change's head as it is now; undefined when it is gone.
   * Absent: no thread is resolved, since nothing tells whether its lines changed.
   */
  readFile?: ((path: string) => Promise<string | undefined>) | undefined;
}

export interface PostedReview {
  threads: { finding: ReviewFinding; url: string; suggestion: boolean }[];
  /** Findings whose thread exists from an earlier review. */
  kept: number;
  unplaced: UnplacedFinding[];
  unplacedUrl: string | undefined;
  resolved: number;
  /** Threads whose finding is no longer reported but whose lines did not change. */
  leftOpen: number;
  counts: Record<Severity, number>;
  /** The line the progress note ends with. */
  summary: string;
}

interface OwnThread {
  discussion: Discussion;
  identity: string;
  resolved: boolean;
}

function ownThreads(discussions: Discussion[], botUserId: number): Map<string, OwnThread> {
  const threads = new Map<string, OwnThread>();
  for (const discussion of discussions) {
    const first = discussion.notes[0];
    if (!first || first.author.id !== botUserId) continue;
    const identity = findingIdentityOf(first.body);
    if (identity)
      threads.set(identity, { discussion, identity, resolved: first.resolved === true });
  }
  return threads;
}

/**
 * Whether the lines a thread was posted on changed since: its file is gone,
 * or no longer holds those lines. A finding the reviewer merely stopped
 * reporting, on lines nobody touched, is no fix; unknown counts as unchanged.
 */
async function linesChanged(thread: OwnThread, target: ReviewPostTarget): Promise<boolean> {
  const first = thread.discussion.notes[0]!;
  const path = first.position?.newPath;
  const fingerprint = findingLinesOf(first.body);
  if (!path || !fingerprint || !target.readFile) return false;
  const file = await target.readFile(path);
  return file === undefined || !fileHoldsLines(file, fingerprint);
}

/** The changed file a finding names: by its new path, or by the old path of a renamed file. */
function fileOf(changes: readonly ChangedFile[], path: string): ChangedFile | undefined {
  return (
    changes.find((f) => f.newPath === path) ??
    changes.find((f) => f.status === 'renamed' && f.oldPath === path)
  );
}

const noteUrl = (webUrl: string, noteId: number | undefined) =>
  noteId === undefined ? webUrl : `${webUrl}#note_${noteId}`;

/** The replacement a finding offers, when it applies to exactly the lines anchored. */
function suggestionOf(finding: ReviewFinding, anchor: ReturnType<typeof anchorFinding>) {
  if (finding.suggestion === undefined || anchor.lines.length === 0) return undefined;
  return { text: finding.suggestion, linesAbove: anchor.linesAbove };
}

export async function postReview(
  target: ReviewPostTarget,
  review: InlineReview,
  version: DiffVersion,
  changes: readonly ChangedFile[],
  /** The changed files the review left out, with the reason (named in the summary). */
  skipped: readonly { path: string; reason: SkipReason }[] = [],
): Promise<PostedReview> {
  const { gitlab, project, iid } = target;
  if (!gitlab.createDiffDiscussion || !gitlab.resolveDiscussion)
    throw new Error('internal: this GitLab port cannot post threads on diff lines');
  const on = { type: 'merge_request' as const, iid };
  const existing = ownThreads(await gitlab.listDiscussions(project, on), target.botUserId);
  const counts = Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as Record<Severity, number>;
  const result: PostedReview = {
    threads: [],
    kept: 0,
    unplaced: [],
    unplacedUrl: undefined,
    resolved: 0,
    leftOpen: 0,
    counts,
    summary: '',
  };
  const seen = new Set<string>();
  for (const reported of review.findings) {
    const file = fileOf(changes, reported.file);
    if (!file) {
      counts[reported.severity]++;
      result.unplaced.push({ ...reported, reason: 'the file is not part of this change' });
      continue;
    }
    // a finding on a renamed file's old name sits on its new one
    const finding = { ...reported, file: file.newPath };
    const anchor = anchorFinding(finding, file, version);
    const identity = findingIdentity(finding, anchor);
    // the same finding twice (two parts of a large review may both report it) counts once
    if (seen.has(identity)) continue;
    seen.add(identity);
    counts[finding.severity]++;
    if (existing.has(identity)) {
      result.kept++;
      continue;
    }
    const suggestion = suggestionOf(finding, anchor);
    const body = renderFindingThread({
      identity,
      severity: finding.severity,
      message: finding.message,
      suggestion,
      lines: anchoredLinesFingerprint(anchor),
      redactor: target.redactor,
      language: target.language,
    });
    try {
      const thread = await gitlab.createDiffDiscussion(project, iid, body, anchor.position);
      result.threads.push({
        finding,
        url: noteUrl(target.webUrl, thread.notes[0]?.id),
        suggestion: suggestion !== undefined && body.includes('```suggestion'),
      });
    } catch (error) {
      if (!(error instanceof ExternalServiceError) || error.status !== 400) throw error;
      result.unplaced.push({ ...finding, reason: `GitLab refused the position: ${error.message}` });
    }
  }
  // files the budget left out were not looked at: their threads' findings may well still be there
  const unexamined = new Set(skipped.filter((s) => s.reason === 'budget').map((s) => s.path));
  for (const thread of existing.values()) {
    if (seen.has(thread.identity) || thread.resolved) continue;
    const threadPath = thread.discussion.notes[0]?.position?.newPath;
    if (threadPath !== undefined && unexamined.has(threadPath)) continue;
    if (!(await linesChanged(thread, target))) {
      result.leftOpen++;
      continue;
    }
    await gitlab.replyToDiscussion(
      project,
      on,
      thread.discussion.id,
      renderFixedReply({
        sha: version.headSha,
        redactor: target.redactor,
        language: target.language,
      }),
    );
    await gitlab.resolveDiscussion(project, iid, thread.discussion.id, true);
    result.resolved++;
  }
  if (result.unplaced.length > 0) {
    const note = await gitlab.createNote(
      project,
      on,
      renderUnplacedFindings({
        findings: result.unplaced,
        redactor: target.redactor,
        language: target.language,
      }),
    );
    result.unplacedUrl = noteUrl(target.webUrl, note.id);
  }
  result.summary = renderReviewSummary({
    language: target.language,
    verdict: review.verdict.result,
    counts,
    threads: result.threads.map((t) => ({
      label: `${t.finding.file}:${t.finding.line}`,
      url: t.url,
    })),
    unplaced: result.unplacedUrl
      ? { count: result.unplaced.length, url: result.unplacedUrl }
      : undefined,
    resolved: result.resolved,
    kept: result.kept,
    leftOpen: result.leftOpen,
    skipped,
  });
  return result;
}
