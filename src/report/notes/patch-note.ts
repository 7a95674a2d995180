/**
 * The 🩹 patch note posted on a fork merge request mr-agent cannot push to
 * (SPEC H3): that nothing was pushed and why, how to apply the change, then
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
  const v = voiceOf({ language: input.language });
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
