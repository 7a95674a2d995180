/**
 * Notes on a GitLab merge request or issue, as the report layer sees them
 * (`NoteTarget`). Bodies arrive final (redacted, escaped, truncated).
 */
import type { NoteTarget } from '../core/note-target.ts';
import { ExternalServiceError } from '../errors/errors.ts';
import type { GitLabPort, Note, Noteable, ProjectRef } from '../core/gitlab-port.ts';

/** A failure after which a POST may still have been carried out: no answer, or a 5xx. */
function mayHaveLanded(error: unknown): boolean {
  return (
    error instanceof ExternalServiceError && (error.status === undefined || error.status >= 500)
  );
}

export class GitLabNoteTarget implements NoteTarget {
  constructor(
    private readonly gitlab: GitLabPort,
    private readonly project: ProjectRef,
    private readonly on: Noteable,
    /** The MR/issue page, for note links (`<webUrl>#note_<id>`). */
    private readonly webUrl?: string,
  ) {}

  /**
   * `replyTo`: a discussion id, or the id of any note in the thread. When the
   * answer to the POST is lost (a timeout or a 5xx), the note may have been
   * written all the same: it is looked for (same body) before the error is
   * passed on, so a caller that tries again does not post it twice.
   */
  async createNote(body: string, options: { replyTo?: string } = {}) {
    let note: Note;
    try {
      note = options.replyTo
        ? await this.gitlab.replyToDiscussion(
            this.project,
            this.on,
            await this.discussionId(options.replyTo),
            body,
          )
        : await this.gitlab.createNote(this.project, this.on, body);
    } catch (error) {
      const landed = mayHaveLanded(error) ? await this.landed(body) : undefined;
      if (!landed) throw error;
      note = landed;
    }
    const id = String(note.id);
    return this.webUrl ? { id, url: `${this.webUrl}#note_${id}` } : { id };
  }

  /** The newest note with exactly this body, when the lookup itself works. */
  private async landed(body: string): Promise<Note | undefined> {
    try {
      const notes = await this.gitlab.listNotes(this.project, this.on);
      return notes.filter((n) => n.body === body).at(-1);
    } catch {
      return undefined;
    }
  }

  async editNote(id: string, body: string): Promise<void> {
    await this.gitlab.editNote(this.project, this.on, Number(id), body);
  }

  private async discussionId(replyTo: string): Promise<string> {
    if (!/^\d+$/.test(replyTo)) return replyTo;
    const discussions = await this.gitlab.listDiscussions(this.project, this.on);
    const found = discussions.find((d) => d.notes.some((n) => String(n.id) === replyTo));
    return found?.id ?? replyTo;
  }
}
