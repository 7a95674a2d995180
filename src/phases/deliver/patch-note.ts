/**
 * The patch note posted on a fork merge request mr-agent cannot push to:
 * simple markdown with the diff in a fenced block. The body goes through the
 * report layer's note pipeline (redaction, quick-action escaping, truncation
 * below GitLab's limit with the fence closed).
 */
import type { Redactor } from '../../log/redact.ts';
import { fence, inlineCode } from '../../report/markdown.ts';
import { renderMarker, type NoteMarker } from '../../core/marker.ts';
import { prepareNoteBody } from '../../report/note-body.ts';

export interface PatchNoteInput {
  marker: Omit<NoteMarker, 'kind'>;
  branch: string;
  reason: string;
  diff: string;
  filesChanged: number;
  /** Where the full patch is kept (job artifacts), named when the note is truncated. */
  artifactPath: string;
  redactor: Redactor;
}

export function renderPatchNote(input: PatchNoteInput): string {
  const files = `${input.filesChanged} file${input.filesChanged === 1 ? '' : 's'}`;
  const body = [
    renderMarker({ kind: 'patch', ...input.marker }),
    '### mr-agent: proposed change as a patch',
    '',
    `mr-agent could not push to ${inlineCode(input.branch)}: ${input.reason}.`,
    `The change (${files}) is below; save it as \`mr-agent.patch\` and run ` +
      '`git apply mr-agent.patch` in your checkout.',
    '',
    fence(input.diff, 'diff'),
    '',
  ].join('\n');
  return prepareNoteBody(body, {
    redactor: input.redactor,
    fullTextHint: `the full patch is in the job artifacts as \`${input.artifactPath}\``,
  });
}
