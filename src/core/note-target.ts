/**
 * Where notes go: a merge request or issue in GitLab (adapter in src/gitlab/),
 * or, for local runs, the terminal and `.mr-agent/notes/` (src/report/).
 * Bodies given here are final: already redacted, escaped and truncated.
 */
export interface NoteTarget {
  /** Creates a note; returns its id. `replyTo` answers inside a discussion thread. */
  createNote(body: string, options?: { replyTo?: string }): Promise<{ id: string; url?: string }>;
  editNote(id: string, body: string): Promise<void>;
}
