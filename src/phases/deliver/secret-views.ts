/**
 * The views of a text the change scan searches (secret-forms.ts compares
 * them after dropping everything but letters and digits), and the decoders
 * that turn a text or a file into bytes worth searching again. Each view and
 * decoder is one linear pass; decompression is bounded (`InflateBudget`).
 */
import { Gunzip, Inflate, Unzlib } from 'fflate';

/** A view to search: `text` read from `start` every `step` characters. */
export interface View {
  text: string;
  start: number;
  step: number;
}

const whole = (text: string): View => ({ text, start: 0, step: 1 });

/** `%74%6f` → `to` (URL-encoding, every character or some). */
function percentDecoded(text: string): string {
  return text.replace(/%([0-9A-Fa-f]{2})/g, (_all, hex: string) =>
    String.fromCharCode(parseInt(hex, 16)),
  );
}

function fromCode(code: number): string {
  return code <= 0x10ffff ? String.fromCodePoint(code) : '';
}

/** `\x74`, `\u0074`, `\u{74}`, `\164`, `&#116;`, `&#x74;` → `t` (string-literal and HTML escapes). */
function escapesDecoded(text: string): string {
  return text.replace(
    /\\(?:x([0-9A-Fa-f]{2})|u\{([0-9A-Fa-f]{1,6})\}|u([0-9A-Fa-f]{4})|([0-7]{1,3}))|&#(?:[xX]([0-9A-Fa-f]{1,6})|([0-9]{1,7}));?/g,
    (_all, x?: string, ub?: string, u?: string, oct?: string, hx?: string, dec?: string) => {
      const hex = x ?? ub ?? u ?? hx;
      if (hex !== undefined) return fromCode(parseInt(hex, 16));
      return fromCode(oct !== undefined ? parseInt(oct, 8) : parseInt(dec!, 10));
    },
  );
}

const NUMBER =
  /(?<![A-Za-z0-9_])(?:0[xX][0-9A-Fa-f]+|0[oO][0-7]+|0[bB][01]+|[0-9]+)(?![A-Za-z0-9_])/g;

/** A number token's value as code (`0x74`, `0o164`, `0b1110100`, `0164` as octal, `116`). */
function codeOf(token: string): number {
  if (/^0[xXoObB]/.test(token)) return Number(token);
  return /^0[0-7]+$/.test(token) ? parseInt(token, 8) : parseInt(token, 10);
}

/**
 * Every number of the text as the character of that code, in order, the
 * rest dropped: byte and code lists (`116,111,107`, `[0x74, 0x6f]`,
 * `0164 0157`). `octal` reads every all-digit number in base 8 (`164 157`).
 */
function numbersAsText(text: string, octal: boolean): string {
  let out = '';
  for (const match of text.matchAll(NUMBER)) {
    const token = match[0];
    if (octal) out += /^[0-7]+$/.test(token) ? fromCode(parseInt(token, 8)) : ' ';
    else out += fromCode(codeOf(token));
  }
  return out;
}

/**
 * The views of one text: as it is, every other character from either start
 * (one character of the secret per line, space or any other separator
 * character, including a letter), URL-decoded, escapes decoded, numbers as
 * character codes (decimal/hex/JS octal, and all octal).
 */
export function textViews(text: string): View[] {
  const views = [whole(text), { text, start: 0, step: 2 }, { text, start: 1, step: 2 }];
  if (/%[0-9A-Fa-f]{2}/.test(text)) views.push(whole(percentDecoded(text)));
  if (/\\[xu0-7]|&#/.test(text)) views.push(whole(escapesDecoded(text)));
  if (/[0-9]/.test(text))
    views.push(whole(numbersAsText(text, false)), whole(numbersAsText(text, true)));
  return views;
}

/** Encoded runs this long or longer are decoded (a compressed secret is longer). */
const MIN_RUN = 24;

/**
 * The bytes of the base64 (either alphabet) and hex runs of a text, line
 * breaks and spaces removed first (wrapped blobs), each decoded at every
 * character offset so a run that starts with a word of the text around it is
 * still decoded right.
 */
export function decodedRuns(text: string): Buffer[] {
  const compact = text.replace(/\s+/g, '');
  const out: Buffer[] = [];
  for (const [run] of compact.matchAll(/[A-Za-z0-9+/_-]{24,}/g))
    for (let offset = 0; offset < 4; offset++) out.push(Buffer.from(run.slice(offset), 'base64'));
  for (const [run] of compact.matchAll(/[0-9A-Fa-f]{32,}/g))
    for (let offset = 0; offset < 2; offset++) out.push(Buffer.from(run.slice(offset), 'hex'));
  return out.filter((bytes) => bytes.length >= MIN_RUN / 2);
}

/** The text a byte view of characters becomes (its codes above 255 dropped). */
export function asBytes(text: string): Buffer {
  return Buffer.from(text, 'latin1');
}

type StreamKind = 'gzip' | 'zlib' | 'raw';

export interface Stream {
  kind: StreamKind;
  offset: number;
}

const GZIP = Buffer.from([0x1f, 0x8b, 0x08]);
const ZIP_ENTRY = Buffer.from('PK\x03\x04', 'latin1');
const ZLIB_SECOND = new Set([0x01, 0x5e, 0x9c, 0xda]);

/**
 * Where compressed streams may start: gzip members, zlib streams (deflate
 * with any of the four usual headers), deflated zip entries, and a raw
 * deflate stream at the very start.
 */
export function compressedStreams(bytes: Buffer): Stream[] {
  const streams: Stream[] = [{ kind: 'raw', offset: 0 }];
  for (let i = bytes.indexOf(GZIP); i >= 0; i = bytes.indexOf(GZIP, i + 1))
    streams.push({ kind: 'gzip', offset: i });
  for (let i = bytes.indexOf(0x78); i >= 0 && i + 1 < bytes.length; i = bytes.indexOf(0x78, i + 1))
    if (ZLIB_SECOND.has(bytes[i + 1]!)) streams.push({ kind: 'zlib', offset: i });
  for (let i = bytes.indexOf(ZIP_ENTRY); i >= 0; i = bytes.indexOf(ZIP_ENTRY, i + 1)) {
    if (i + 30 > bytes.length || bytes.readUInt16LE(i + 8) !== 8) continue;
    const data = i + 30 + bytes.readUInt16LE(i + 26) + bytes.readUInt16LE(i + 28);
    if (data < bytes.length) streams.push({ kind: 'raw', offset: data });
  }
  return streams;
}

/** Bytes fed to a decompressor at once: at most ~1032 times as much comes out. */
const SLICE = 4096;

/**
 * How much decompression one scan may do. A zip bomb cannot make the scan
 * slow or big: each stream stops at `perStream` bytes, all of them together
 * at `total`; a stream stopped at a limit was not scanned whole, which the
 * scan reports rather than passes.
 */
export class InflateBudget {
  used = 0;

  constructor(
    readonly perStream = 16 * 1024 * 1024,
    readonly total = 64 * 1024 * 1024,
  ) {}

  /** The stream's output, up to the limits; `cut` when a limit stopped it. */
  inflate(bytes: Buffer, stream: Stream): { out: Buffer; cut: boolean } {
    const chunks: Uint8Array[] = [];
    let size = 0;
    const limit = Math.min(this.perStream, this.total - this.used);
    const take = (chunk: Uint8Array) => {
      chunks.push(chunk);
      size += chunk.length;
    };
    const decoder =
      stream.kind === 'gzip'
        ? new Gunzip(take)
        : stream.kind === 'zlib'
          ? new Unzlib(take)
          : new Inflate(take);
    let cut = false;
    try {
      for (let i = stream.offset; i < bytes.length; i += SLICE) {
        decoder.push(bytes.subarray(i, i + SLICE), false);
        if (size > limit) {
          cut = true;
          break;
        }
      }
    } catch {
      // not a stream after all, or it ended in garbage: what came out is scanned
    }
    const out = Buffer.concat(chunks).subarray(0, limit);
    this.used += out.length;
    return { out, cut };
  }
}
