/**
 * A bounded buffer for a command's output: it keeps the first
 * quarter and the last three quarters of `limit` bytes — where test runners
 * print their summary — drops the middle as it streams past, and counts
 * exactly how many bytes and lines it dropped. Memory stays at about `limit`
 * plus one chunk however much a command prints.
 */
import { joinCut, type OutputCut } from '../core/shell-port.ts';

const NEWLINE = 0x0a;

function countNewlines(bytes: Uint8Array): number {
  let count = 0;
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === NEWLINE) count++;
  return count;
}

/** A UTF-8 continuation byte (10xxxxxx): never the first byte of a character. */
const continuation = (byte: number | undefined) => byte !== undefined && (byte & 0xc0) === 0x80;

export interface KeptOutput {
  /** Everything, or head + cut marker + tail; one final newline stripped. */
  text: string;
  /** The parts, when the middle was cut (`head` keeps its final newline; `tail` lost its). */
  parts?: { head: string; tail: string; cut: OutputCut };
}

/** Bytes kept in one buffer that grows up to `limit`, then keeps only the newest `limit` bytes. */
class ByteRing {
  private ring = Buffer.alloc(0);
  private start = 0;
  private length = 0;

  constructor(private readonly limit: number) {}

  /** Copies `bytes` in (they may be reused by the caller afterwards). */
  push(bytes: Buffer): void {
    if (bytes.length >= this.limit) {
      this.reserve(this.limit);
      bytes.copy(this.ring, 0, bytes.length - this.limit);
      this.start = 0;
      this.length = this.limit;
      return;
    }
    const needed = this.length + bytes.length;
    this.reserve(needed);
    const capacity = this.ring.length;
    const at = (this.start + this.length) % capacity;
    const first = Math.min(bytes.length, capacity - at);
    bytes.copy(this.ring, at, 0, first);
    if (first < bytes.length) bytes.copy(this.ring, 0, first);
    if (needed <= capacity) this.length = needed;
    else {
      this.start = (this.start + needed - capacity) % capacity;
      this.length = capacity;
    }
  }

  /** Grows (doubling, at most to the limit) so that `size` bytes fit, keeping the order. */
  private reserve(size: number): void {
    const capacity = this.ring.length;
    if (size <= capacity || capacity >= this.limit) return;
    const grown = Buffer.allocUnsafe(Math.min(this.limit, Math.max(size, capacity * 2, 4096)));
    this.contents().copy(grown);
    this.ring = grown;
    this.start = 0;
  }

  contents(): Buffer {
    const end = this.start + this.length;
    if (end <= this.ring.length) return this.ring.subarray(this.start, end);
    return Buffer.concat([
      this.ring.subarray(this.start),
      this.ring.subarray(0, end - this.ring.length),
    ]);
  }
}

export class HeadTailBuffer {
  private readonly head: ByteRing;
  private readonly tail: ByteRing;
  private readonly headLimit: number;
  private headBytes = 0;
  private totalBytes = 0;
  private totalNewlines = 0;

  constructor(limit: number) {
    const bounded = Math.max(16, Math.floor(limit));
    this.headLimit = Math.floor(bounded / 4);
    this.head = new ByteRing(this.headLimit);
    this.tail = new ByteRing(bounded - this.headLimit);
  }

  /** Takes what it keeps of `chunk` by copying: the caller may reuse the buffer. */
  push(chunk: Buffer): void {
    this.totalBytes += chunk.length;
    this.totalNewlines += countNewlines(chunk);
    let rest = chunk;
    if (this.headBytes < this.headLimit) {
      const take = Math.min(this.headLimit - this.headBytes, rest.length);
      this.head.push(rest.subarray(0, take));
      this.headBytes += take;
      rest = rest.subarray(take);
    }
    if (rest.length > 0) this.tail.push(rest);
  }

  get bytes(): number {
    return this.totalBytes;
  }

  /** The kept text; the cut (if any) falls on line boundaries when a line ends near it. */
  result(): KeptOutput {
    const head = this.head.contents();
    let tail = this.tail.contents();
    if (head.length + tail.length === this.totalBytes) {
      return { text: stripFinalNewline(Buffer.concat([head, tail]).toString('utf8')) };
    }
    const kept = head.subarray(0, lineEnd(head));
    tail = tail.subarray(lineStart(tail));
    const cut: OutputCut = {
      bytes: this.totalBytes - kept.length - tail.length,
      lines: this.totalNewlines - countNewlines(kept) - countNewlines(tail),
    };
    const headText = kept.toString('utf8');
    const tailText = stripFinalNewline(tail.toString('utf8'));
    return {
      text: joinCut(headText, cut, tailText),
      parts: { head: headText, tail: tailText, cut },
    };
  }
}

/** Where the head ends: after its last newline in its second half, else on a character boundary. */
function lineEnd(head: Buffer): number {
  const newline = head.lastIndexOf(NEWLINE);
  if (newline >= head.length / 2) return newline + 1;
  return wholeCharacters(head);
}

/** The length of the longest prefix holding only whole UTF-8 characters. */
function wholeCharacters(bytes: Buffer): number {
  let lead = bytes.length - 1;
  while (lead >= 0 && lead > bytes.length - 4 && continuation(bytes[lead])) lead--;
  if (lead < 0) return bytes.length;
  const first = bytes[lead]!;
  const size = first >= 0xf0 ? 4 : first >= 0xe0 ? 3 : first >= 0xc0 ? 2 : 1;
  return lead + size <= bytes.length ? bytes.length : lead;
}

/** Where the tail starts: after its first newline in its first half, else on a character boundary. */
function lineStart(tail: Buffer): number {
  const newline = tail.indexOf(NEWLINE);
  if (newline !== -1 && newline < tail.length / 2) return newline + 1;
  let start = 0;
  while (start < tail.length && continuation(tail[start])) start++;
  return start;
}

function stripFinalNewline(text: string): string {
  return text.endsWith('\n') ? text.slice(0, -1) : text;
}
