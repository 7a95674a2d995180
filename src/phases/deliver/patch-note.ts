/**
 * The patch note posted on a fork merge request mr-agent cannot push to; it
 * is rendered by the report layer (src/report/notes/patch-note.ts), which
 * also runs it through the note pipeline.
 */
export {
  renderPatchNote,
  type NotPushedWhy,
  type PatchNoteInput,
} from '../../report/notes/patch-note.ts';
