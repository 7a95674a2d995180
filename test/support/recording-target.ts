import type { NoteOptions, NoteTarget } from '../../src/core/note-target.ts';

/** An in-memory NoteTarget that records every call; `failNext(n)` makes the next n calls throw. */
export class RecordingTarget implements NoteTarget {
  readonly notes = new Map<string, string>();
  readonly calls: Array<{
    op: 'create' | 'edit';
    id: string;
    body: string;
    replyTo?: string;
    thread?: boolean;
  }> = [];
  private failures = 0;
  private nextId = 1;

  failNext(n: number): void {
    this.failures = n;
  }

  get creates(): number {
    return this.calls.filter((c) => c.op === 'create').length;
  }

  get edits(): number {
    return this.calls.filter((c) => c.op === 'edit').length;
  }

  lastBody(id = '1'): string {
    return this.notes.get(id) ?? '';
  }

  async createNote(body: string, options?: NoteOptions): Promise<{ id: string; url?: string }> {
    this.maybeFail();
    const id = String(this.nextId++);
    this.notes.set(id, body);
    this.calls.push({
      op: 'create',
      id,
      body,
      replyTo: options?.replyTo,
      ...(options?.thread ? { thread: true } : {}),
    });
    return { id, url: `https://gitlab.example.com/note/${id}` };
  }

  async editNote(id: string, body: string): Promise<void> {
    this.maybeFail();
    if (!this.notes.has(id)) throw new Error(`no note ${id}`);
    this.notes.set(id, body);
    this.calls.push({ op: 'edit', id, body });
  }

  /** The notes whose threads were resolved, in order. */
  readonly resolved: string[] = [];

  async resolveThread(noteId: string): Promise<void> {
    this.maybeFail();
    this.resolved.push(noteId);
  }

  private maybeFail(): void {
    if (this.failures > 0) {
      this.failures -= 1;
      throw new Error('GitLab answered 502');
    }
  }
}
