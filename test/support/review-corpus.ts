/**
 * A corpus of review findings a scripted reviewer gives on the synthetic
 * large change (./review-fixture.ts), each of a known kind: suggestions on
 * lines the change adds (single lines, ranges, a range that starts on an
 * unchanged line of the hunk, one named by a renamed file's old path), and
 * findings GitLab must refuse or that cannot carry a suggestion (a line
 * outside every hunk, a line past the file's end, a range across two hunks,
 * a line of a deleted file). The scripted replies answer each review call
 * with the findings of the files that call shows.
 */
import type { ChangedFile } from '../../src/core/gitlab-port.ts';
import { attributeRules } from '../../src/phases/review/inline/gitattributes.ts';
import type { ReviewFinding } from '../../src/phases/review/inline/findings.ts';
import { planReview } from '../../src/phases/review/inline/prompt.ts';
import { addedRuns, type LargeChange } from './review-fixture.ts';

export type CorpusKind =
  | 'added-line'
  | 'added-range'
  | 'context-range'
  | 'old-path'
  | 'off-diff'
  | 'past-end'
  | 'across-hunks'
  | 'deleted-file';

/** The kinds whose lines are all shown in one hunk: their suggestion must apply. */
export const ANCHORABLE: readonly CorpusKind[] = [
  'added-line',
  'added-range',
  'context-range',
  'old-path',
];
/** The kinds GitLab refuses a position for (400): each must be reported. */
export const REFUSED: readonly CorpusKind[] = ['off-diff', 'past-end', 'deleted-file'];

export interface CorpusFinding {
  kind: CorpusKind;
  finding: ReviewFinding;
  /** The file the finding is about, by its new path. */
  path: string;
}

/** The same lines, marked as reviewed: a suggestion that keeps the line count. */
const reviewed = (lines: string[]) => lines.map((l) => `${l} // reviewed`).join('\n');

/**
 * The corpus on the change, with each file's lines moved down by `shift[path]`
 * (a push that added lines at the top).
 */
export function reviewCorpus(
  change: LargeChange,
  shift: Readonly<Record<string, number>> = {},
): CorpusFinding[] {
  const corpus: CorpusFinding[] = [];
  const add = (kind: CorpusKind, path: string, line: number, end: number, extra = {}) => {
    const file = change.reviewable.get(path);
    const by = shift[path] ?? 0;
    const lines = file ? file.lines.slice(line - 1, end) : [];
    corpus.push({
      kind,
      path,
      finding: {
        file: path,
        line: line + by,
        ...(end > line ? { end_line: end + by } : {}),
        severity: kind === 'added-line' ? 'major' : 'minor',
        message: `${kind} finding in ${path} at ${line}`,
        ...(lines.length === end - line + 1 ? { suggestion: reviewed(lines) } : {}),
        ...extra,
      },
    });
  };
  let index = 0;
  for (const [path, file] of change.reviewable) {
    index++;
    const runs = addedRuns(file);
    const last = runs.at(-1)!;
    const end = last.at(-1)!;
    if (path === change.renamed.to) {
      add('added-line', path, last[0]!, last[0]!);
      // the same file named by its old path: anchored on the new one
      add('old-path', path, last[0]! - 1, last[0]! - 1, { file: change.renamed.from });
      continue;
    }
    // the last function's first body line; the one before it's two body lines
    add('added-line', path, end - 3, end - 3);
    add('added-range', path, end - 8, end - 7);
    const first = runs[0]!;
    if (file.added.has(1)) add('added-range', path, 3, 4);
    else add('context-range', path, first[0]! - 1, first[0]!);
    if (runs.length >= 3) {
      // from the first hunk's added lines to the second's: lines between are not shown
      if (index % 4 === 1) add('across-hunks', path, first[0]!, runs[1]!.at(-1)!);
      // the first function's header: unchanged and far from every hunk
      if (index % 3 === 1) add('off-diff', path, 3, 3);
    }
    if (index === 2) add('past-end', path, file.lines.length + 40, file.lines.length + 40);
  }
  corpus.push({
    kind: 'deleted-file',
    path: change.deleted,
    finding: {
      file: change.deleted,
      line: 5,
      severity: 'minor',
      message: `deleted-file finding in ${change.deleted}`,
      suggestion: 'export const gone = true;',
    },
  });
  return corpus;
}

/** The target branch's `.gitattributes`, as the review reads it. */
export function fixtureAttributes(change: LargeChange) {
  return attributeRules(new Map([['', change.base['.gitattributes'] ?? '']]));
}

/**
 * Scripted replies for the review's calls: one per call the review makes on
 * `changes` (found by the first file it shows), with the corpus findings of
 * the files it shows; a finding of a file no call shows goes with the first.
 */
export function corpusReplies(
  changes: readonly ChangedFile[],
  change: LargeChange,
  corpus: readonly CorpusFinding[],
  charsPerCall?: number,
): { purpose: string; contains: string[]; content: string }[] {
  const plan = planReview(changes, {
    attributes: fixtureAttributes(change),
    ...(charsPerCall ? { charsPerCall } : {}),
  });
  const shown = new Set(plan.groups.flatMap((g) => g.paths));
  return plan.groups.map((group, i) => {
    const findings = corpus
      .filter((c) => group.paths.includes(c.path) || (i === 0 && !shown.has(c.path)))
      .map((c) => c.finding);
    const result = findings.some((f) => f.severity === 'major') ? 'FAIL' : 'PASS_WITH_SUGGESTIONS';
    return {
      purpose: 'review.merge_request',
      contains: [`diff of ${group.paths[0]} (`],
      content: JSON.stringify({ result, feedback: `part ${i + 1}`, findings }),
    };
  });
}

/** Each anchorable suggestion's file as it must read once every one is applied. */
export function expectedAfterApply(
  change: LargeChange,
  corpus: readonly CorpusFinding[],
): Map<string, string> {
  const files = new Map<string, string[]>();
  for (const c of corpus) {
    if (!ANCHORABLE.includes(c.kind) || c.finding.suggestion === undefined) continue;
    const lines = files.get(c.path) ?? [...change.reviewable.get(c.path)!.lines];
    const end = c.finding.end_line ?? c.finding.line;
    lines.splice(c.finding.line - 1, end - c.finding.line + 1, ...c.finding.suggestion.split('\n'));
    files.set(c.path, lines);
  }
  return new Map([...files].map(([path, lines]) => [path, `${lines.join('\n')}\n`]));
}
