/**
 * The reviewer's view of a merge request's change: each file's diff with the
 * new version's line numbers (the numbers a finding names), fenced as
 * untrusted data, within a size limit; files that cannot carry findings
 * (deleted, binary, generated) are named with the reason instead.
 */
import type { ChatMessage } from '../../../core/llm-port.ts';
import type { ChangedFile } from '../../../core/gitlab-port.ts';
import { fenceData, renderPrompt, splitPrompt, type PromptLibrary } from '../../../core/prompts.ts';

/** Longest diff text shown to the reviewer. */
export const REVIEW_DIFF_CHARS = 60_000;
const DESCRIPTION_CHARS = 20_000;
const FOCUS_CHARS = 2_000;

/** Files whose diff is produced rather than written: reviewing them line by line helps nobody. */
const GENERATED =
  /(^|\/)(package-lock\.json|yarn\.lock|pnpm-lock\.yaml|Cargo\.lock|poetry\.lock|Gemfile\.lock|composer\.lock|go\.sum)$|(^|\/)dist\//;

/** Why a changed file is not shown for review; undefined when it is. */
export function skipReason(file: ChangedFile): string | undefined {
  if (file.status === 'deleted') return 'deleted';
  if (GENERATED.test(file.newPath)) return 'generated';
  if (file.diff.trim() === '') return 'binary or too large for a text diff';
  return undefined;
}

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

export interface ReviewedChange {
  /** The diff section of the prompt. */
  text: string;
  /** Files shown to the reviewer. */
  shown: number;
  /** Files not shown, with the reason. */
  skipped: { path: string; reason: string }[];
}

export function reviewedChange(changes: readonly ChangedFile[]): ReviewedChange {
  const parts: string[] = [];
  const skipped: ReviewedChange['skipped'] = [];
  let used = 0;
  for (const file of changes) {
    const reason = skipReason(file);
    if (reason) {
      skipped.push({ path: file.newPath, reason });
      continue;
    }
    const label =
      file.oldPath === file.newPath
        ? file.newPath
        : `${file.newPath} (renamed from ${file.oldPath})`;
    const part = fenceData(`diff of ${label}`, numberedDiff(file.diff));
    if (used + part.length > REVIEW_DIFF_CHARS) {
      skipped.push({ path: file.newPath, reason: 'over the size of one review' });
      continue;
    }
    used += part.length;
    parts.push(part);
  }
  const notes = skipped.map((s) => `- not shown: ${s.path} (${s.reason})`);
  const text = [...parts, ...(notes.length > 0 ? [notes.join('\n')] : [])].join('\n\n');
  return { text: text || '(no changes)', shown: parts.length, skipped };
}

export async function inlineReviewMessages(
  prompts: PromptLibrary,
  input: {
    title: string;
    description: string;
    focus: string;
    change: ReviewedChange;
  },
): Promise<ChatMessage[]> {
  const template = await prompts.load('review-inline');
  const { system, user } = splitPrompt(template);
  const focus = input.focus.trim().slice(0, FOCUS_CHARS);
  const values = {
    merge_request: fenceData(
      'merge request title and description',
      `${input.title}\n\n${input.description.slice(0, DESCRIPTION_CHARS)}`,
    ),
    focus: focus ? fenceData('focus asked for', focus) : '(none: review the whole change)',
    file_count: String(input.change.shown),
    diff: input.change.text,
  };
  return [
    { role: 'system', content: renderPrompt(system, {}) },
    { role: 'user', content: renderPrompt(user, values) },
  ];
}
