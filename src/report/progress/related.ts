/**
 * Lets the progress note link the run's other notes: a note target that,
 * when a ❓ question, a 🙋 request for help or a patch note is created,
 * tells the progress note where it is (its hidden marker says which).
 */
import { parseMarker } from '../marker.ts';
import type { NoteTarget } from '../../core/note-target.ts';
import type { ProgressState, RelatedNote } from '../../core/progress/model.ts';
import { setRelated } from '../../core/progress/updates.ts';

const RELATED: Readonly<Record<string, RelatedNote>> = {
  clarification: 'question',
  'human-intervention': 'human-help',
  patch: 'patch',
};

export interface ProgressUpdates {
  update(change: (state: ProgressState) => ProgressState): void;
}

export function linkingRelatedNotes(inner: NoteTarget, progress: ProgressUpdates): NoteTarget {
  return {
    async createNote(body, options) {
      const note = options ? await inner.createNote(body, options) : await inner.createNote(body);
      const kind = options?.replyTo ? undefined : RELATED[parseMarker(body)?.kind ?? ''];
      if (kind && note.url) progress.update((s) => setRelated(s, kind, note.url!));
      return note;
    },
    editNote: (id, body) => inner.editNote(id, body),
  };
}
