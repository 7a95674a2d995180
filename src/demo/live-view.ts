/**
 * The demo's terminal: narration lines, and below them a live region that
 * shows the progress note as GitLab has it now. On a TTY the region is
 * redrawn in place; otherwise (CI logs, pipes) each new version prints only
 * the lines that changed, as plain text.
 */
import { parseMarker } from '../report/marker.ts';
import type { NoteTarget } from '../core/note-target.ts';
import { terminalLines } from '../report/terminal-render.ts';

export interface TerminalOut {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

const ESC = '\u001b[';
const DIM = `${ESC}2m`;
const BOLD = `${ESC}1m`;
const RESET = `${ESC}0m`;

const COLOUR_CODE = new RegExp(`${ESC.replace('[', '\\[')}[0-9;]*m`, 'g');

function zeroWidth(ch: string): boolean {
  const code = ch.codePointAt(0)!;
  return (code >= 0x200b && code <= 0x200f) || (code >= 0xfe00 && code <= 0xfe0f);
}

/**
 * Columns a string takes on a terminal: pictographs count two (some terminals
 * draw a few of them narrower; counting wide keeps the region from wrapping),
 * colour codes, joiners and variation selectors none.
 */
export function displayWidth(text: string): number {
  let width = 0;
  for (const ch of text.replace(COLOUR_CODE, '')) {
    if (zeroWidth(ch)) continue;
    width += /\p{Extended_Pictographic}/u.test(ch) && ch !== '©' && ch !== '®' ? 2 : 1;
  }
  return width;
}

/** Cuts a line to `width` terminal columns, ending in `…` when cut. */
export function clipToWidth(line: string, width: number): string {
  if (displayWidth(line) <= width) return line;
  let out = '';
  for (const ch of line) {
    if (displayWidth(`${out}${ch}…`) > width) break;
    out += ch;
  }
  return `${out}…`;
}

export class LiveView {
  private region: string[] = [];
  private shown = new Set<string>();
  private readonly width: number;

  constructor(
    private readonly out: TerminalOut,
    private readonly options: { live: boolean; color: boolean },
  ) {
    this.width = Math.max(40, (out.columns ?? 100) - 1);
  }

  get live(): boolean {
    return this.options.live;
  }

  get color(): boolean {
    return this.options.color;
  }

  dim(text: string): string {
    return this.options.color ? `${DIM}${text}${RESET}` : text;
  }

  bold(text: string): string {
    return this.options.color ? `${BOLD}${text}${RESET}` : text;
  }

  /** A narration line, printed above the live region. */
  line(text = ''): void {
    const region = this.region;
    this.clear();
    this.out.write(`${text}\n`);
    this.draw(region);
  }

  /** Replaces the live region (TTY) or prints what changed (plain). */
  show(lines: readonly string[], label: string): void {
    if (this.options.live) {
      this.clear();
      this.draw([this.dim(label), ...lines]);
      return;
    }
    const changed = lines.filter((l) => l.trim() !== '' && !this.shown.has(l));
    this.shown = new Set(lines);
    if (changed.length === 0) return;
    this.out.write(`${label}\n${changed.map((l) => `    ${l}`).join('\n')}\n`);
  }

  /** Ends the live region: it stays on screen as it is. */
  release(): void {
    this.region = [];
  }

  /** Terminal columns a line of the live region may take. */
  get columns(): number {
    return this.width;
  }

  private clip(line: string): string {
    return clipToWidth(line, this.width);
  }

  private clear(): void {
    if (!this.options.live || this.region.length === 0) return;
    this.out.write(`${ESC}${this.region.length}A${ESC}0J`);
    this.region = [];
  }

  private draw(lines: readonly string[]): void {
    if (!this.options.live || lines.length === 0) return;
    this.region = lines.map((l) => this.clip(l));
    this.out.write(`${this.region.join('\n')}\n`);
  }
}

/** Markdown links as terminal text: `label` (or `label <url>`). */
export function plainLinks(line: string, keepUrl = false): string {
  return line.replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_all, label: string, url: string) =>
    keepUrl ? `${label} <${url}>` : label,
  );
}

/**
 * The live form of a progress note: what GitLab shows before the fold — the
 * state, the change, the next step, the checklist — with links as their
 * labels and long lines clipped to the width; the folded run details are one
 * line.
 */
export function compactProgress(body: string, width = 100): string[] {
  return terminalLines(body)
    .map((line) => plainLinks(line))
    .filter((line) => line.trim() !== '')
    .map((line) => clipToWidth(line, width));
}

export interface WatchedNotes {
  target: NoteTarget;
  /** The latest body of each note, by id, in the order they were created. */
  bodies: Map<string, string>;
  progressId(): string | undefined;
  writes: number;
}

/**
 * Wraps the run's note target: every write goes to GitLab first, then the
 * progress note is shown in the live region and other notes are announced.
 */
export function watchNotes(
  inner: NoteTarget,
  view: LiveView,
  describe: (kind: string, url: string | undefined) => string,
): WatchedNotes {
  const bodies = new Map<string, string>();
  let progress: string | undefined;
  let version = 0;
  const width = view.live ? view.columns : Number.POSITIVE_INFINITY;
  const watched: WatchedNotes = {
    bodies,
    progressId: () => progress,
    writes: 0,
    target: {
      async createNote(body, options) {
        const note = await inner.createNote(body, options);
        watched.writes += 1;
        bodies.set(note.id, body);
        const kind = parseMarker(body)?.kind ?? 'note';
        if (kind === 'progress' && progress === undefined) {
          progress = note.id;
          version = 1;
          view.show(compactProgress(body, width), `  progress note ${note.id}, version 1`);
        } else view.line(`  ${describe(kind, note.url)}`);
        return note;
      },
      async editNote(id, body) {
        await inner.editNote(id, body);
        watched.writes += 1;
        bodies.set(id, body);
        if (id === progress) {
          version += 1;
          view.show(compactProgress(body, width), `  progress note ${id}, version ${version}`);
        }
      },
    },
  };
  return watched;
}
