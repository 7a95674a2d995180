/**
 * The reviewer's view of a merge request's change: each file's diff with the
 * new version's line numbers (the numbers a finding names), fenced as
 * untrusted data, in calls of a bounded size (a large change is reviewed in
 * several, file by file); files that cannot carry findings or are produced
 * rather than written (./skip.ts) are named with the reason instead.
 */
import type { ChatMessage } from '../../../core/llm-port.ts';
import type { ChangedFile } from '../../../core/gitlab-port.ts';
import { fenceData, renderPrompt, splitPrompt, type PromptLibrary } from '../../../core/prompts.ts';
import type { AttributeRules } from './gitattributes.ts';
import { skipReason, type SkipReason } from './skip.ts';

/** Longest diff text one review call is shown, unless `review.diff_chars_per_call` says otherwise. */
export const REVIEW_DIFF_CHARS = 60_000;
const DESCRIPTION_CHARS = 20_000;
const FOCUS_CHARS = 2_000;
/** Longest list of the change's files each part of a review is told about. */
const FILE_LIST_CHARS = 8_000;

/** How the reviewer is told why a file is not shown (the prompts are English). */
const SKIP_WORDS: Record<SkipReason, string> = {
  deleted: 'deleted',
  binary: 'binary, or no text diff',
  renamed: 'renamed without changes',
  lockfile: 'generated: a lockfile',
  build: 'generated: build output',
  minified: 'generated: minified',
  attributes: 'marked generated in .gitattributes',
  budget: 'left out: the budget ran out',
};

/** A unified diff with the new side's line numbers in front of added and unchanged lines. */
export function numberedDiff(diff: string): string {
  const out: string[] = [];
  let newNo = 0;
  let inHunk = false;
  for (const text of diff.split('\n')) {
    const header = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(text);
    if (header) {
      newNo = Number(header[1]);
      inHunk = true;
      out.push(text);
      continue;
    }
    if (!inHunk || text.startsWith('\\')) continue;
    if (text.startsWith('+')) out.push(`${String(newNo++).padStart(5)} + ${text.slice(1)}`);
    else if (text.startsWith('-')) out.push(`${''.padStart(5)} - ${text.slice(1)}`);
    else if (text.startsWith(' ')) out.push(`${String(newNo++).padStart(5)}   ${text.slice(1)}`);
  }
  return out.join('\n');
}

/** One call's share of a review: the diffs of some files, or a part of one long file's diff. */
export interface ReviewGroup {
  /** The files whose diff (or a part of it) this call shows. */
  paths: string[];
  /** The diff section of the prompt. */
  text: string;
}

/** How a merge request's change is reviewed: the calls to make, and the files left out with the reason. */
export interface ReviewPlan {
  groups: ReviewGroup[];
  /** Files shown to the reviewer. */
  reviewed: string[];
  skipped: { path: string; reason: SkipReason }[];
}

interface Piece {
  path: string;
  text: string;
}

/**
 * A file's numbered diff in pieces of at most `room` characters, cut at a
 * hunk's start when one is in the second half of the piece, else at a line;
 * a single line longer than a piece is cut short.
 */
function cutDiff(numbered: string, room: number): string[] {
  if (numbered.length <= room) return [numbered];
  const pieces: string[] = [];
  let lines: string[] = [];
  let size = 0;
  let lastHunk = -1;
  const flush = (upTo: number) => {
    pieces.push(lines.slice(0, upTo).join('\n'));
    lines = lines.slice(upTo);
    size = lines.reduce((n, l) => n + l.length + 1, 0);
    lastHunk = lines.findLastIndex((l) => l.startsWith('@@'));
  };
  for (const raw of numbered.split('\n')) {
    const line = raw.length > room ? `${raw.slice(0, room - 20)} … (cut)` : raw;
    if (size + line.length + 1 > room && lines.length > 0)
      flush(lastHunk > lines.length / 2 ? lastHunk : lines.length);
    if (line.startsWith('@@')) lastHunk = lines.length;
    lines.push(line);
    size += line.length + 1;
  }
  if (lines.length > 0) pieces.push(lines.join('\n'));
  return pieces;
}

function labelOf(file: ChangedFile): string {
  return file.oldPath === file.newPath
    ? file.newPath
    : `${file.newPath} (renamed from ${file.oldPath})`;
}

/** Pieces in order into groups of at most `room` characters, each closed once it holds `average`. */
function packPieces(pieces: readonly Piece[], room: number, average: number): ReviewGroup[] {
  const groups: ReviewGroup[] = [];
  let current: { paths: string[]; texts: string[]; size: number } | undefined;
  const close = () => {
    if (current) groups.push({ paths: current.paths, text: current.texts.join('\n\n') });
  };
  for (const piece of pieces) {
    if (!current || current.size + piece.text.length > room || current.size >= average) {
      close();
      current = { paths: [], texts: [], size: 0 };
    }
    if (!current.paths.includes(piece.path)) current.paths.push(piece.path);
    current.texts.push(piece.text);
    current.size += piece.text.length + 2;
  }
  close();
  return groups;
}

/**
 * The review of a change in calls of at most `charsPerCall` characters of
 * diff each, about evenly filled: whole files packed together in the
 * change's order, and a file longer than one call in parts of its own.
 */
export function planReview(
  changes: readonly ChangedFile[],
  options: { attributes?: AttributeRules; charsPerCall?: number } = {},
): ReviewPlan {
  const room = options.charsPerCall ?? REVIEW_DIFF_CHARS;
  const attributes = options.attributes ?? new Map();
  const skipped: ReviewPlan['skipped'] = [];
  const reviewed: string[] = [];
  const pieces: Piece[] = [];
  for (const file of changes) {
    const reason = skipReason(file, attributes);
    if (reason) {
      skipped.push({ path: file.newPath, reason });
      continue;
    }
    reviewed.push(file.newPath);
    const label = labelOf(file);
    // the fence and its label take some room of their own
    const parts = cutDiff(numberedDiff(file.diff), Math.max(1_000, room - label.length - 200));
    parts.forEach((part, i) => {
      const name = parts.length > 1 ? `${label}, part ${i + 1} of ${parts.length}` : label;
      pieces.push({ path: file.newPath, text: fenceData(`diff of ${name}`, part) });
    });
  }
  // as few calls as the limit allows, of about the same size each
  const total = pieces.reduce((n, p) => n + p.text.length + 2, 0);
  for (let calls = Math.max(1, Math.ceil(total / room)); ; calls++) {
    const groups = packPieces(pieces, room, total / calls);
    if (groups.length <= calls) return { groups, reviewed, skipped };
  }
}

/** The lines that tell the reviewer which files are not shown, and why. */
function skippedNotes(skipped: ReviewPlan['skipped']): string {
  const words = skipped.map((s) => `${s.path} (${SKIP_WORDS[s.reason]})`).join('\n');
  return fenceData('changed files not shown, with the reason', words);
}

/** What the reviewer of one part of a change is told of the other parts; empty for a one-part review. */
function partOf(plan: ReviewPlan, group: number): string {
  if (plan.groups.length < 2) return '';
  const all = plan.reviewed.join('\n');
  const list =
    all.length > FILE_LIST_CHARS ? `${all.slice(0, FILE_LIST_CHARS)}\n… (more files)` : all;
  return [
    '',
    `This change is reviewed in ${plan.groups.length} parts, each in a call of its own; this is part ${group + 1}. Report findings on the files shown here only.`,
    '',
    fenceData('every reviewed file of the change', list),
  ].join('\n');
}

export async function inlineReviewMessages(
  prompts: PromptLibrary,
  input: {
    title: string;
    description: string;
    focus: string;
    plan: ReviewPlan;
    /** Which of the plan's groups this call shows. */
    group: number;
  },
): Promise<ChatMessage[]> {
  const template = await prompts.load('review-inline');
  const { system, user } = splitPrompt(template);
  const focus = input.focus.trim().slice(0, FOCUS_CHARS);
  const group = input.plan.groups[input.group];
  if (!group) throw new Error(`internal: review part ${input.group + 1} does not exist`);
  const values = {
    merge_request: fenceData(
      'merge request title and description',
      `${input.title}\n\n${input.description.slice(0, DESCRIPTION_CHARS)}`,
    ),
    focus: focus ? fenceData('focus asked for', focus) : '(none: review the whole change)',
    file_count: String(group.paths.length),
    part: partOf(input.plan, input.group),
    diff: [
      group.text,
      ...(input.plan.skipped.length > 0 ? [skippedNotes(input.plan.skipped)] : []),
    ].join('\n\n'),
  };
  return [
    { role: 'system', content: renderPrompt(system, {}) },
    { role: 'user', content: renderPrompt(user, values) },
  ];
}
