/**
 * What the stand-in keeps for reviews in a merge request's diff, as GitLab
 * documents it: the merge request's diff versions (`GET …/versions`, one per
 * head the stand-in has seen), the position of each diff note
 * (doc/api/discussions.md), which threads are resolved, and the suggestions
 * parsed from diff notes (doc/api/suggestions.md).
 */
import { createHash } from 'node:crypto';

/** One merge request diff version (MergeRequestDiffVersionsSchema). */
export interface VersionRec {
  id: number;
  mergeRequestId: number;
  headSha: string;
  baseSha: string;
  startSha: string;
  createdAt: string;
  /** Files in the version's diff. */
  files: number;
}

export interface LineRef {
  lineCode: string;
  type: 'new' | 'old' | null;
  oldLine: number | null;
  newLine: number | null;
}

/** A diff note's position, as GitLab stores and answers it (`note.position.to_h`). */
export interface PositionRec {
  baseSha: string;
  startSha: string;
  headSha: string;
  oldPath: string;
  newPath: string;
  positionType: 'text';
  oldLine: number | null;
  newLine: number | null;
  lineRange: { start: LineRef; end: LineRef } | null;
}

export interface ResolutionRec {
  byUserId: number;
  at: string;
}

export interface SuggestionRec {
  id: number;
  noteId: number;
  mergeRequestId: number;
  path: string;
  fromLine: number;
  toLine: number;
  fromContent: string;
  toContent: string;
  applied: boolean;
  commitId: string | null;
}

/** One line of a text diff, with its numbers on each side. */
export interface DiffLine {
  type: 'new' | 'old' | 'context';
  oldLine: number | null;
  newLine: number | null;
}

/** Every line shown in a unified diff's hunks (the lines a position may name). */
export function diffLines(diff: string): DiffLine[] {
  const lines: DiffLine[] = [];
  let oldNo = 0;
  let newNo = 0;
  let inHunk = false;
  for (const text of diff.split('\n')) {
    const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(text);
    if (hunk) {
      oldNo = Number(hunk[1]);
      newNo = Number(hunk[2]);
      inHunk = true;
      continue;
    }
    if (!inHunk || text.startsWith('\\')) continue;
    if (text.startsWith('diff --git ')) inHunk = false;
    else if (text.startsWith('+')) lines.push({ type: 'new', oldLine: null, newLine: newNo++ });
    else if (text.startsWith('-')) lines.push({ type: 'old', oldLine: oldNo++, newLine: null });
    else if (text.startsWith(' '))
      lines.push({ type: 'context', oldLine: oldNo++, newLine: newNo++ });
  }
  return lines;
}

/** GitLab's line code: the path's SHA-1, then the old and new line numbers (0 for none). */
export function lineCode(path: string, oldLine: number | null, newLine: number | null): string {
  const sha = createHash('sha1').update(path).digest('hex');
  return `${sha}_${oldLine ?? 0}_${newLine ?? 0}`;
}

/**
 * The suggestion blocks of a note body: ```` ```suggestion:-N+M ```` (lines
 * above and below the note's line; no range is that line alone), as GitLab's
 * suggestions parser reads them.
 */
export function parseSuggestionBlocks(
  body: string,
): { above: number; below: number; content: string }[] {
  const blocks: { above: number; below: number; content: string }[] = [];
  const lines = body.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,}|~{3,})suggestion(?::(-\d+)?(\+\d+)?)?\s*$/.exec(lines[i]!);
    if (!open) continue;
    const fence = open[1]!;
    const content: string[] = [];
    let j = i + 1;
    while (j < lines.length && !(lines[j]!.startsWith(fence) && lines[j]!.trim() === fence))
      content.push(lines[j++]!);
    if (j >= lines.length) break;
    blocks.push({
      above: open[2] ? -Number(open[2]) : 0,
      below: open[3] ? Number(open[3]) : 0,
      content: content.length > 0 ? `${content.join('\n')}\n` : '',
    });
    i = j;
  }
  return blocks;
}

export class ReviewState {
  /** Diff versions per merge request id, oldest first. */
  readonly versions = new Map<number, VersionRec[]>();
  /** The position of each diff thread (its notes share it), by discussion id. */
  readonly positions = new Map<string, PositionRec>();
  /** Resolved threads by discussion id. */
  readonly resolved = new Map<string, ResolutionRec>();
  readonly suggestions: SuggestionRec[] = [];

  versionsOf(mergeRequestId: number): VersionRec[] {
    return this.versions.get(mergeRequestId) ?? [];
  }
}

/** A note's position as GitLab answers it (`note.position.to_h`). */
export function renderPosition(p: PositionRec) {
  const ref = (r: LineRef) => ({
    line_code: r.lineCode,
    type: r.type,
    old_line: r.oldLine,
    new_line: r.newLine,
  });
  return {
    base_sha: p.baseSha,
    start_sha: p.startSha,
    head_sha: p.headSha,
    old_path: p.oldPath,
    new_path: p.newPath,
    position_type: p.positionType,
    old_line: p.oldLine,
    new_line: p.newLine,
    line_range: p.lineRange ? { start: ref(p.lineRange.start), end: ref(p.lineRange.end) } : null,
  };
}
