/**
 * Where notes go: a merge request or issue in GitLab (adapter in src/gitlab/),
 * or, for local runs, the terminal and `.mr-agent/notes/` (src/report/).
 * Bodies given here are final: already redacted, escaped and truncated.
 */
export interface NoteOptions {
  /** Answers inside the discussion thread of this discussion or note id. */
  replyTo?: string;
  /**
   * Starts a thread (a resolvable discussion on GitLab) instead of a plain
   * comment: for a note people answer in, like the ❓ question.
   */
  thread?: boolean;
}

export interface NoteTarget {
  /** Creates a note; returns its id (for a thread, the id of its first note). */
  createNote(body: string, options?: NoteOptions): Promise<{ id: string; url?: string }>;
  editNote(id: string, body: string): Promise<void>;
  /** Resolves the thread a note starts or sits in, where the target has resolvable threads. */
  resolveThread?(noteId: string): Promise<void>;
}
