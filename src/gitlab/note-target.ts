/**
 * Notes on a GitLab merge request or issue, as the report layer sees them
 * (`NoteTarget`). Bodies arrive final (redacted, escaped, truncated).
 */
import type { NoteOptions, NoteTarget } from '../core/note-target.ts';
import type { GitLabPort, Note, Noteable, ProjectRef } from '../core/gitlab-port.ts';
import { parseMarker } from '../report/marker.ts';

export class GitLabNoteTarget implements NoteTarget {
  constructor(
    private readonly gitlab: GitLabPort,
    private readonly project: ProjectRef,
    private readonly on: Noteable,
    /** The MR/issue page, for note links (`<webUrl>#note_<id>`). */
    private readonly webUrl?: string,
    /**
     * The job's one listing of the notes and its own user (JobReads): the
     * progress-note lookup then costs no request of its own.
     */
    private readonly known?: { notes(): Promise<Note[]>; selfId: number },
  ) {}

  /**
   * `replyTo`: a discussion id, or the id of any note in the thread;
   * `thread`: a new thread (`POST …/discussions`), its first note's id
   * returned, so replies are found by that id as for any note. A lost
   * answer is checked by the port before anything is sent again
   * (checked-write.ts). A progress note is first looked for by its marker:
   * the same job of the same pipeline edits the note it wrote before (a
   * create retried after its answer was lost, a job run again) instead of
   * posting a second one: a run has one progress note.
   */
  async createNote(body: string, options: NoteOptions = {}) {
    const own = options.replyTo ? undefined : await this.ownProgressNote(body);
    if (own !== undefined) {
      await this.editNote(own, body);
      return this.ref(own);
    }
    if (options.thread && !options.replyTo) {
      const thread = await this.gitlab.createDiscussion(this.project, this.on, body);
      const first = thread.notes[0];
      if (!first) throw new Error('internal: GitLab started a thread without a note');
      return this.ref(String(first.id));
    }
    const note = options.replyTo
      ? await this.gitlab.replyToDiscussion(
          this.project,
          this.on,
          await this.discussionId(options.replyTo),
          body,
        )
      : await this.gitlab.createNote(this.project, this.on, body);
    return this.ref(String(note.id));
  }

  async editNote(id: string, body: string): Promise<void> {
    await this.gitlab.editNote(this.project, this.on, Number(id), body);
  }

  /** The ❓ question's thread, resolved once settled (merge requests only: GitLab's API). */
  async resolveThread(noteId: string): Promise<void> {
    if (this.on.type !== 'merge_request' || !this.gitlab.resolveDiscussion) return;
    const discussion = await this.discussionId(noteId);
    await this.gitlab.resolveDiscussion(this.project, this.on.iid, discussion, true);
  }

  private ref(id: string) {
    return this.webUrl ? { id, url: `${this.webUrl}#note_${id}` } : { id };
  }

  /** Our progress note of the same job and pipeline, when the body is one. */
  private async ownProgressNote(body: string): Promise<string | undefined> {
    const marker = parseMarker(body);
    if (marker?.kind !== 'progress' || !marker.job || !marker.pipeline) return undefined;
    const selfId = this.known?.selfId ?? (await this.gitlab.currentUser()).id;
    const notes = this.known
      ? await this.known.notes()
      : await this.gitlab.listNotes(this.project, this.on);
    const found = notes.find((n) => {
      if (n.author.id !== selfId || n.system) return false;
      const other = parseMarker(n.body);
      return (
        other?.kind === 'progress' && other.job === marker.job && other.pipeline === marker.pipeline
      );
    });
    return found ? String(found.id) : undefined;
  }

  private async discussionId(replyTo: string): Promise<string> {
    if (!/^\d+$/.test(replyTo)) return replyTo;
    const discussions = await this.gitlab.listDiscussions(this.project, this.on);
    const found = discussions.find((d) => d.notes.some((n) => String(n.id) === replyTo));
    return found?.id ?? replyTo;
  }
}
