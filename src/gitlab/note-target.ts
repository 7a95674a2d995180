/**
 * Notes on a GitLab merge request or issue, as the report layer sees them
 * (`NoteTarget`). Bodies arrive final (redacted, escaped, truncated).
 */
import type { NoteTarget } from '../report/note-target.ts';
import type { GitLabPort, Noteable, ProjectRef } from './port.ts';

export class GitLabNoteTarget implements NoteTarget {
  constructor(
    private readonly gitlab: GitLabPort,
    private readonly project: ProjectRef,
    private readonly on: Noteable,
    /** The MR/issue page, for note links (`<webUrl>#note_<id>`). */
    private readonly webUrl?: string,
  ) {}

  /** `replyTo`: a discussion id, or the id of any note in the thread. */
  async createNote(body: string, options: { replyTo?: string } = {}) {
    const note = options.replyTo
      ? await this.gitlab.replyToDiscussion(
          this.project,
          this.on,
          await this.discussionId(options.replyTo),
          body,
        )
      : await this.gitlab.createNote(this.project, this.on, body);
    const id = String(note.id);
    return this.webUrl ? { id, url: `${this.webUrl}#note_${id}` } : { id };
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
