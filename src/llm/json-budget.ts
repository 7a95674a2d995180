/**
 * The work one `extractJson` call may do beyond its linear scan: how many
 * spans it parses, how many characters go through `JSON.parse` and
 * jsonrepair, and how many spans may fail. `JSON.parse` costs far more per
 * character than the scan (about 25–100 ms per MB of numbers or nested
 * arrays), a thrown parse error costs microseconds, and jsonrepair grows
 * faster than linearly on some inputs (128 KB with thousands of missing
 * commas takes seconds), so each is bounded by a count or a size, and a
 * 10 MB reply of any shape costs the scan plus a few milliseconds.
 */

/** Values nested deeper than this are not parsed (no model reply needs it; parsers choke on it). */
export const MAX_JSON_DEPTH = 512;
/** At most this many spans are tried per call, whatever came of them. */
export const MAX_PARSED_SPANS = 1024;
/** After this many spans that were not valid JSON (repaired or not), the search gives up. */
export const MAX_FAILED_PARSES = 256;
/** At most this many characters per call go through `JSON.parse`; a longer value is skipped whole. */
export const MAX_PARSE_CHARS = 256 * 1024;
/** At most this many characters per call go through jsonrepair. */
export const MAX_REPAIR_CHARS = 16 * 1024;

const MAX_NOTES = 3;
const PREVIEW = 24;

/** State of one extraction: what is left of each budget, and the first reasons for rejecting a span. */
export class Attempt {
  readonly notes: string[] = [];
  parsedSpans = 0;
  failedParses = 0;
  parseBudget = MAX_PARSE_CHARS;
  repairBudget = MAX_REPAIR_CHARS;
  /** Why the search stopped early, once it has. */
  gaveUp: string | undefined;

  constructor(readonly text: string) {}

  note(pos: number, why: () => string): void {
    if (this.notes.length < MAX_NOTES) this.notes.push(`${describeAt(this.text, pos)} ${why()}`);
  }

  /** Counts one more span tried; false (and the search ends) once there were too many. */
  tryOne(): boolean {
    if (this.gaveUp !== undefined) return false;
    if (++this.parsedSpans <= MAX_PARSED_SPANS) return true;
    this.gaveUp = `gave up after trying ${MAX_PARSED_SPANS} spans`;
    return false;
  }

  /** Takes `length` characters from the parse budget, if it has them. */
  takeParse(length: number): boolean {
    if (length > this.parseBudget) return false;
    this.parseBudget -= length;
    return true;
  }

  /** Takes `length` characters from the repair budget, if it has them. */
  takeRepair(length: number): boolean {
    if (length > this.repairBudget) return false;
    this.repairBudget -= length;
    return true;
  }

  failed(): void {
    if (++this.failedParses >= MAX_FAILED_PARSES && this.gaveUp === undefined) {
      this.gaveUp = `gave up after ${MAX_FAILED_PARSES} failed parses`;
    }
  }
}

export function describeAt(text: string, pos: number): string {
  const kind = text[pos] === '[' ? 'array' : 'object';
  const preview = text.slice(pos, pos + PREVIEW).replace(/\s+/g, ' ');
  const more = text.length > pos + PREVIEW ? '…' : '';
  return `the ${kind} at offset ${pos} (${JSON.stringify(preview + more)})`;
}

export function messageOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.length > 100 ? `${message.slice(0, 97)}...` : message;
}
