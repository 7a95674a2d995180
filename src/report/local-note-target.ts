/**
 * The NoteTarget of runs without GitLab (`mr-agent run`): each note is written to
 * `<state dir>/notes/<kind>-<n>.md` (the kind comes from the note's hidden
 * marker) and shown on the terminal — in full when created, and as the lines
 * that changed when edited, so a progress note does not flood the screen.
 */
import { readdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeFileAtomic } from '../history/atomic.ts';
import { parseMarker } from './marker.ts';
import type { NoteOptions, NoteTarget } from '../core/note-target.ts';
import { terminalLines } from './terminal-render.ts';

export interface LocalNoteTargetOptions {
  /** Absolute path of the state directory (`config.state.directory` resolved). */
  stateDir: string;
  /** Where terminal output goes (e.g. `io.stdout.write`). */
  write: (text: string) => void;
  /** Colour (TTY); plain text otherwise. */
  color?: boolean;
}

const RULE = '─'.repeat(60);

export class LocalNoteTarget implements NoteTarget {
  private readonly counters = new Map<string, number>();
  private readonly scans = new Map<string, Promise<number>>();
  private readonly shown = new Map<string, string[]>();

  constructor(private readonly options: LocalNoteTargetOptions) {}

  get notesDir(): string {
    return path.join(this.options.stateDir, 'notes');
  }

  fileFor(id: string): string {
    return path.join(this.notesDir, `${id}.md`);
  }

  async createNote(body: string, options?: NoteOptions): Promise<{ id: string; url: string }> {
    const kind = parseMarker(body)?.kind ?? 'note';
    const n = await this.nextNumber(kind);
    const id = `${kind}-${n}`;
    const file = this.fileFor(id);
    await writeFileAtomic(file, body);
    const lines = terminalLines(body, this.options.color);
    this.shown.set(id, lines);
    const reply = options?.replyTo ? ` (reply to ${options.replyTo})` : '';
    const where = shownPath(process.cwd(), file);
    this.options.write(`${RULE}\n● note ${id}${reply} → ${where}\n${lines.join('\n')}\n${RULE}\n`);
    return { id, url: pathToFileURL(file).href };
  }

  async editNote(id: string, body: string): Promise<void> {
    const file = this.fileFor(id);
    if (!existsSync(file)) throw new Error(`no local note ${id} in ${this.notesDir}`);
    await writeFileAtomic(file, body);
    const lines = terminalLines(body, this.options.color);
    const before = new Set(this.shown.get(id) ?? []);
    this.shown.set(id, lines);
    const changed = lines.filter((line) => line.trim() !== '' && !before.has(line));
    if (changed.length === 0) return;
    this.options.write(`↻ ${id}\n${changed.map((line) => `  ${line}`).join('\n')}\n`);
  }

  /** The next number for `kind`, continuing after notes of earlier runs in the same folder. */
  private async nextNumber(kind: string): Promise<number> {
    let scan = this.scans.get(kind);
    if (!scan) {
      scan = this.highestOnDisk(kind);
      this.scans.set(kind, scan);
    }
    const base = await scan;
    const n = (this.counters.get(kind) ?? base) + 1;
    this.counters.set(kind, n);
    return n;
  }

  private async highestOnDisk(kind: string): Promise<number> {
    let highest = 0;
    const files = await readdir(this.notesDir).catch(() => [] as string[]);
    const pattern = new RegExp(`^${kind.replace(/[^a-z-]/g, '')}-(\\d+)\\.md$`);
    for (const file of files) {
      const match = pattern.exec(file);
      if (match) highest = Math.max(highest, Number(match[1]));
    }
    return highest;
  }
}

/** A path as the user reads it: relative below the working folder, absolute outside it. */
export function shownPath(cwd: string, file: string): string {
  const relative = path.relative(cwd, file);
  return relative === '' || relative.startsWith('..') || path.isAbsolute(relative)
    ? file
    : relative;
}
