/**
 * The patch note posted on a fork merge request mr-agent cannot push to:
 * simple markdown with the diff in a fenced block, escaped against quick
 * actions (M3) and kept below GitLab's note limit.
 */
import { renderMarker, type NoteMarker } from '../../report/marker.ts';

/** Stay well under GitLab's 1,000,000-character note limit. */
export const PATCH_NOTE_LIMIT = 900_000;

/**
 * Neutralises GitLab quick actions: outside fenced code blocks, a line whose
 * first non-blank character is `/` gets a backslash before it (markdown shows
 * the same text; GitLab no longer sees a command).
 * (Local stand-in for the report layer's escaping helper, src/report/markdown.ts.)
 */
export function escapeQuickActions(text: string): string {
  let fence: string | undefined;
  return text
    .split('\n')
    .map((line) => {
      const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
      if (marker) {
        if (fence === undefined) fence = marker;
        else if (marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
        return line;
      }
      if (fence !== undefined) return line;
      return line.replace(/^(\s*)\//, '$1\\/');
    })
    .join('\n');
}

/** A fence longer than any backtick run inside `text`. */
function fenceFor(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  return '`'.repeat(Math.max(3, longest + 1));
}

export interface PatchNoteInput {
  marker: Omit<NoteMarker, 'kind'>;
  branch: string;
  reason: string;
  /** Already redacted. */
  diff: string;
  filesChanged: number;
  /** Where the full patch is kept (job artifacts), for oversized diffs. */
  artifactPath: string;
}

export function renderPatchNote(input: PatchNoteInput): string {
  const head = escapeQuickActions(
    [
      `### mr-agent: proposed change as a patch`,
      '',
      `mr-agent could not push to \`${input.branch}\`: ${input.reason}.`,
      `The change (${input.filesChanged} file${input.filesChanged === 1 ? '' : 's'}) is below; ` +
        `save it as \`mr-agent.patch\` and run \`git apply mr-agent.patch\` in your checkout.`,
      '',
    ].join('\n'),
  );
  const marker = renderMarker({ kind: 'patch', ...input.marker });
  const fence = fenceFor(input.diff);
  const full = `${marker}\n${head}\n${fence}diff\n${input.diff.replace(/\n$/, '')}\n${fence}\n`;
  if (full.length <= PATCH_NOTE_LIMIT) return full;
  const note = escapeQuickActions(
    `\n_The patch is too large for a note (${input.diff.length} characters); ` +
      `the full patch is in the job artifacts as \`${input.artifactPath}\`._\n`,
  );
  const room = PATCH_NOTE_LIMIT - marker.length - head.length - note.length - 2 * fence.length - 40;
  const cut = input.diff.slice(0, Math.max(0, room));
  const clean = cut.slice(0, Math.max(0, cut.lastIndexOf('\n')));
  return `${marker}\n${head}\n${fence}diff\n${clean}\n${fence}\n${note}`;
}
