/**
 * The 🩹 patch note posted on a fork merge request mr-agent cannot push to
 * (see docs/security.md, forks): that nothing was pushed and why, how to apply the change, then
 * the diff (folded) in a fenced block. The body goes through the note
 * pipeline (redaction, quick-action escaping, truncation below GitLab's limit
 * with the fence and the fold closed).
 */
import type { Redactor } from '../../log/redact.ts';
import { renderMarker, type NoteMarker } from '../marker.ts';
import type { Language } from '../../messages/language.ts';
import { fence, inlineCode, oneLine, safeProse } from '../markdown.ts';
import { prepareNoteBody } from '../note-body.ts';
import { voiceOf } from '../progress/headline.ts';
import { EMOJI } from '../vocabulary.ts';
import { defineMessages } from '../../messages/catalog.ts';
import { defineNote } from '../note-definition.ts';

export const PATCH_MESSAGES = defineMessages({
  en: {
    'patch.heading': 'Patch to apply · could not push to {branch}',
    'patch.line': 'I could not push to {branch}: {reason}. Nothing was pushed.',
    'patch.next':
      'save the patch below as `mr-agent.patch`, run `git apply mr-agent.patch` in your checkout and push.',
    'patch.details': { one: 'The patch · 1 file', other: 'The patch · {count} files' },
    'patch.full': 'the full patch is in the job artifacts as {path}',
  },
  ja: {
    'patch.heading': '適用用のパッチ · {branch} にプッシュできませんでした',
    'patch.line': '{branch} にプッシュできませんでした: {reason}。何もプッシュしていません。',
    'patch.next':
      '下のパッチを `mr-agent.patch` として保存し、手元のチェックアウトで `git apply mr-agent.patch` を実行してプッシュしてください。',
    'patch.details': { one: 'パッチ · {count} ファイル', other: 'パッチ · {count} ファイル' },
    'patch.full': 'パッチ全体はジョブのアーティファクト {path} にあります',
  },
});

/** The 🩹 patch to apply by hand, when the change could not be pushed. */
export const PATCH_NOTE = defineNote({
  name: 'patch',
  purpose: 'the 🩹 patch to apply by hand, when the change could not be pushed',
  messages: PATCH_MESSAGES,
});

export interface PatchNoteInput {
  marker: Omit<NoteMarker, 'kind'>;
  branch: string;
  reason: string;
  diff: string;
  filesChanged: number;
  /** Where the full patch is kept (job artifacts), named when the note is truncated. */
  artifactPath: string;
  redactor: Redactor;
  language?: Language;
}

export function renderPatchNote(input: PatchNoteInput): string {
  const v = voiceOf({ language: input.language }, PATCH_MESSAGES);
  const branch = inlineCode(input.branch);
  const reason = oneLine(safeProse(input.reason), 300);
  const body = [
    renderMarker({ kind: 'patch', ...input.marker }),
    `### ${EMOJI.patch} ${v.m('patch.heading', { branch })}`,
    '',
    v.m('patch.line', { branch, reason }),
    '',
    `**${v.m('next.label')}** ${v.m('patch.next')}`,
    '',
    '<details>',
    `<summary>${v.m('patch.details', { count: input.filesChanged })}</summary>`,
    '',
    fence(input.diff, 'diff'),
    '',
    '</details>',
    '',
  ].join('\n');
  return prepareNoteBody(body, {
    redactor: input.redactor,
    fullTextHint: v.m('patch.full', { path: inlineCode(input.artifactPath) }),
  });
}
