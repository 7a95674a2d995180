import { GitLabNoteTarget } from '../gitlab/note-target.ts';
import type { GitLabPort, Note } from '../core/gitlab-port.ts';
import { LocalNoteTarget } from '../report/local-note-target.ts';
import { parseMarker } from '../report/marker.ts';
import type { NoteOptions, NoteTarget } from '../core/note-target.ts';
import type { CiRequest } from './request.ts';

/**
 * Where a CI run's notes go: the merge request or issue it works on; without
 * one (an API run on a branch with no open merge request), the job log and
 * `.mr-agent/notes/`.
 */
export function noteTargetFor(input: {
  gitlab: GitLabPort;
  projectId: number;
  request: CiRequest;
  /** The merge request's or issue's page, for note links. */
  webUrl: string | undefined;
  stateDir: string;
  write: (text: string) => void;
  /** The job's one listing of the notes and the bot's id (JobReads). */
  known?: { notes(): Promise<Note[]>; selfId: number };
}): NoteTarget {
  const target = input.request.target;
  if (target.kind === 'none')
    return new LocalNoteTarget({ stateDir: input.stateDir, write: input.write });
  return new GitLabNoteTarget(
    input.gitlab,
    input.projectId,
    { type: target.kind, iid: target.iid },
    input.webUrl,
    input.known,
  );
}

/**
 * The run job of the two-step flow goes on editing the progress note the
 * plan job created — one progress note per run: its first progress note is
 * written over that note instead of being created.
 */
export class AdoptingNoteTarget implements NoteTarget {
  private adopted = false;

  constructor(
    private readonly inner: NoteTarget,
    private readonly noteId: string,
    private readonly webUrl: string | undefined,
  ) {}

  async createNote(body: string, options?: NoteOptions) {
    if (!this.adopted && parseMarker(body)?.kind === 'progress') {
      this.adopted = true;
      await this.inner.editNote(this.noteId, body);
      return this.webUrl
        ? { id: this.noteId, url: `${this.webUrl}#note_${this.noteId}` }
        : { id: this.noteId };
    }
    return this.inner.createNote(body, options);
  }

  editNote(id: string, body: string): Promise<void> {
    return this.inner.editNote(id, body);
  }
}
