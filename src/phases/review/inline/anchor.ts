/**
 * Where a finding sits in the merge request's diff: the lines of the new
 * side (added or unchanged) shown in one hunk. A finding whose lines are all
 * there gets a position GitLab accepts, a `line_range` when it spans several
 * lines, and may carry a suggestion, which then applies to exactly those
 * lines.
 */
import { createHash } from 'node:crypto';
import type {
  ChangedFile,
  DiffLineRef,
  DiffPosition,
  DiffVersion,
} from '../../../core/gitlab-port.ts';
import type { ReviewFinding } from './findings.ts';

export interface NewSideLine {
  newLine: number;
  /** Set for an unchanged line (GitLab's position then names both sides). */
  oldLine: number | undefined;
  text: string;
  hunk: number;
}

/** The new side's lines shown in a unified diff, by line number. */
export function newSideLines(diff: string): Map<number, NewSideLine> {
  const lines = new Map<number, NewSideLine>();
  let oldNo = 0;
  let newNo = 0;
  let hunk = -1;
  for (const text of diff.split('\n')) {
    const header = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(text);
    if (header) {
      oldNo = Number(header[1]);
      newNo = Number(header[2]);
      hunk++;
      continue;
    }
    if (hunk < 0 || text.startsWith('\\')) continue;
    if (text.startsWith('+')) {
      lines.set(newNo, { newLine: newNo, oldLine: undefined, text: text.slice(1), hunk });
      newNo++;
    } else if (text.startsWith('-')) oldNo++;
    else if (text.startsWith(' ')) {
      lines.set(newNo, { newLine: newNo, oldLine: oldNo, text: text.slice(1), hunk });
      oldNo++;
      newNo++;
    }
  }
  return lines;
}

function lineCode(path: string, line: NewSideLine): string {
  const sha = createHash('sha1').update(path).digest('hex');
  return `${sha}_${line.oldLine ?? 0}_${line.newLine}`;
}

function lineRef(path: string, line: NewSideLine): DiffLineRef {
  return {
    lineCode: lineCode(path, line),
    type: line.oldLine === undefined ? 'new' : undefined,
    oldLine: line.oldLine,
    newLine: line.newLine,
  };
}

export interface Anchor {
  position: DiffPosition;
  /** The anchored lines, first to last; empty when the lines are not all in one hunk of the diff. */
  lines: NewSideLine[];
  /** A suggestion replaces exactly the anchored lines: `-N+0` from the position's line. */
  linesAbove: number;
}

/**
 * The finding's position in the latest version: its last line, with a
 * `line_range` from its first. Lines not shown in the diff still get a
 * position (GitLab then answers 400, which the caller reports), but no lines.
 */
export function anchorFinding(
  finding: ReviewFinding,
  file: ChangedFile,
  version: DiffVersion,
): Anchor {
  const start = finding.line;
  const end = Math.max(finding.end_line ?? start, start);
  const shown = newSideLines(file.diff);
  const lines: NewSideLine[] = [];
  for (let n = start; n <= end; n++) {
    const line = shown.get(n);
    if (line) lines.push(line);
  }
  const whole = lines.length === end - start + 1 && lines.every((l) => l.hunk === lines[0]!.hunk);
  const last = whole ? lines.at(-1) : undefined;
  // the last line names both sides when it is an unchanged one, even when the lines above it are not all shown
  const endLine = shown.get(end);
  const position: DiffPosition = {
    baseSha: version.baseSha,
    startSha: version.startSha,
    headSha: version.headSha,
    oldPath: file.oldPath,
    newPath: file.newPath,
    oldLine: endLine?.oldLine,
    newLine: end,
    ...(whole && lines.length > 1
      ? {
          lineRange: { start: lineRef(file.newPath, lines[0]!), end: lineRef(file.newPath, last!) },
        }
      : {}),
  };
  return { position, lines: whole ? lines : [], linesAbove: end - start };
}

/**
 * A finding's identity across re-reviews: its file, its message in a
 * normalised form and the text of the lines it sits on (not their numbers,
 * which move when lines are added above).
 */
export function findingIdentity(finding: ReviewFinding, anchor: Anchor): string {
  const message = finding.message
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
  const context = anchor.lines.map((l) => l.text.trim()).join('\n');
  return createHash('sha256')
    .update(`${finding.file}\n${message}\n${context}`)
    .digest('hex')
    .slice(0, 16);
}

/** The text of lines as one fingerprint: their count and a hash of their text. */
function fingerprintOf(texts: readonly string[]): string {
  const hash = createHash('sha256').update(texts.join('\n')).digest('hex').slice(0, 16);
  return `${texts.length}-${hash}`;
}

/** The fingerprint of the lines a finding is anchored on; undefined when it has none. */
export function anchoredLinesFingerprint(anchor: Anchor): string | undefined {
  return anchor.lines.length > 0 ? fingerprintOf(anchor.lines.map((l) => l.text)) : undefined;
}

/**
 * Whether a file still holds the lines of a fingerprint, one after the
 * other, anywhere (lines added above only move them).
 */
export function fileHoldsLines(file: string, fingerprint: string): boolean {
  const count = Number(fingerprint.split('-')[0]);
  if (!Number.isInteger(count) || count < 1) return false;
  const lines = file.split('\n').map((l) => l.replace(/\r$/, ''));
  for (let start = 0; start + count <= lines.length; start++)
    if (fingerprintOf(lines.slice(start, start + count)) === fingerprint) return true;
  return false;
}
