/**
 * The forms of a secret the change scan looks for, and the index that finds
 * them in one pass over a text.
 *
 * Everything is compared in one normalised domain: the ASCII letters and
 * digits of a text, every other character skipped. Separators of any kind
 * (spaces, line breaks, commas, quotes and `+` of string concatenation) then
 * vanish, and the encodings that keep the secret's characters in order need
 * no decoding: a form is precomputed for each (plain, reversed, rot13, hex,
 * base64 and base32 at every byte alignment, and the reverse of each).
 *
 * A form is found when pieces of it of at least `GRAM` characters, found
 * anywhere in the change (one file or several, in any order), cover it whole.
 * So a secret split across files or lines is found like a whole one, and an
 * ordinary text holds no secret by chance: each of a random secret's pieces
 * is one of 62^6 strings.
 *
 * Secrets whose letters and digits number fewer than `MIN_SCANNED_LENGTH` are
 * left to the Redactor's exact forms (log/redact.ts): in this domain they would
 * match ordinary text.
 */

/** Length of the pieces a form is found by (the scan keeps a key as 4 + 2 symbols: change both together). */
export const GRAM = 6;
/** Letters and digits a form needs to be looked for here. */
export const MIN_SCANNED_LENGTH = 8;

/** 0–61 for an ASCII letter or digit, -1 for anything else (index: char code). */
export const SYMBOL = new Int8Array(65536).fill(-1);
for (let i = 0; i < 10; i++) SYMBOL[48 + i] = i;
for (let i = 0; i < 26; i++) {
  SYMBOL[65 + i] = 10 + i;
  SYMBOL[97 + i] = 36 + i;
}

/** The letters and digits of a text (the normalised domain). */
export function normalised(text: string): string {
  return text.replace(/[^A-Za-z0-9]+/g, '');
}

/** The gram key of `GRAM` symbols, 6 bits each (exact: 36 bits fit a double). */
export function gramKey(text: string, start: number): number {
  let key = 0;
  for (let i = 0; i < GRAM; i++) key = key * 64 + SYMBOL[text.charCodeAt(start + i)]!;
  return key;
}

export function reversed(text: string): string {
  return [...text].reverse().join('');
}

export function rot13(text: string): string {
  return text.replace(/[A-Za-z]/g, (c) => {
    const base = c <= 'Z' ? 65 : 97;
    return String.fromCharCode(((c.charCodeAt(0) - base + 13) % 26) + base);
  });
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32, no padding. */
export function base32(bytes: Uint8Array): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

/**
 * The text of `bytes` in a block encoding wherever they sit in a larger
 * encoded blob: for each byte offset in a block, the encoding of the whole
 * blocks that hold only the secret's bytes (the same whatever surrounds it).
 */
function alignedForms(bytes: Buffer, block: number, encode: (bytes: Buffer) => string): string[] {
  const forms: string[] = [];
  for (let shift = 0; shift < block; shift++) {
    const inner = bytes.subarray(shift);
    const aligned = inner.subarray(0, inner.length - (inner.length % block));
    if (aligned.length > 0) forms.push(encode(aligned));
  }
  return forms;
}

/** The encoded forms of one text, before normalisation. */
function encodedForms(text: string): string[] {
  const bytes = Buffer.from(text, 'utf8');
  const hex = bytes.toString('hex');
  return [
    text,
    rot13(text),
    hex,
    hex.toUpperCase(),
    ...alignedForms(bytes, 3, (b) => b.toString('base64')),
    ...alignedForms(bytes, 5, base32).flatMap((f) => [f, f.toLowerCase()]),
  ];
}

export interface SecretForm {
  /** Index of the secret in the scan's list. */
  secret: number;
  /** The form, normalised. */
  text: string;
}

/** Every normalised form of each secret long enough to be looked for. */
export function secretForms(secrets: readonly string[]): SecretForm[] {
  const forms: SecretForm[] = [];
  secrets.forEach((secret, index) => {
    const texts = new Set<string>();
    for (const base of [secret, reversed(secret)])
      for (const form of encodedForms(base)) {
        texts.add(normalised(form));
        texts.add(normalised(reversed(form)));
      }
    for (const text of texts)
      if (text.length >= MIN_SCANNED_LENGTH) forms.push({ secret: index, text });
  });
  return forms;
}

/** Where a gram sits: in which form, at which position. */
export interface GramPlace {
  form: number;
  position: number;
}

/**
 * The grams of every form, by key, and a bitmap of their low 24 bits (most
 * positions of a text are turned away by the bitmap alone).
 */
export class GramIndex {
  readonly forms: readonly SecretForm[];
  private readonly places = new Map<number, GramPlace[]>();
  private readonly bitmap = new Uint8Array(1 << 21);

  constructor(forms: readonly SecretForm[]) {
    this.forms = forms;
    forms.forEach((form, index) => {
      for (let position = 0; position + GRAM <= form.text.length; position++) {
        const key = gramKey(form.text, position);
        const low = key % (1 << 24);
        this.bitmap[low >>> 3]! |= 1 << (low & 7);
        const list = this.places.get(key);
        if (list) list.push({ form: index, position });
        else this.places.set(key, [{ form: index, position }]);
      }
    });
  }

  /** Whether a gram whose key ends in these 24 bits may be a secret's (false for most). */
  mayHold(low: number): boolean {
    return (this.bitmap[low >>> 3]! & (1 << (low & 7))) !== 0;
  }

  /** The places of a gram key, or undefined. */
  lookup(key: number): readonly GramPlace[] | undefined {
    return this.places.get(key);
  }
}

/**
 * The grams found so far, per form and position, with the sources (files)
 * that held each; a form is found when its found grams cover it.
 */
export class GramHits {
  private readonly found = new Map<number, Map<number, Set<number>>>();

  constructor(private readonly index: GramIndex) {}

  add(place: GramPlace, source: number): void {
    let positions = this.found.get(place.form);
    if (!positions) this.found.set(place.form, (positions = new Map()));
    let sources = positions.get(place.position);
    if (!sources) positions.set(place.position, (sources = new Set()));
    sources.add(source);
  }

  /**
   * The sources that hold a secret: for each covered form, every source that
   * holds it whole, and among the others the fewest (found greedily) whose
   * pieces together make it whole (a split secret). A source that only shares
   * a piece with the secret by chance is not named.
   */
  sourcesWithSecrets(): Set<number> {
    const result = new Set<number>();
    for (const [form, positions] of this.found) {
      const length = this.index.forms[form]!.text.length;
      if (!covers(positions.keys(), length)) continue;
      const pieces = new Map<number, number[]>();
      for (const [position, sources] of positions)
        for (const source of sources) {
          const list = pieces.get(source);
          if (list) list.push(position);
          else pieces.set(source, [position]);
        }
      for (const [source, list] of pieces)
        if (covers(list, length)) {
          result.add(source);
          pieces.delete(source);
        }
      const split = coveringSources(pieces, length);
      if (
        covers(
          split.flatMap((source) => pieces.get(source)!),
          length,
        )
      )
        for (const source of split) result.add(source);
    }
    return result;
  }
}

function coverage(positions: Iterable<number>, length: number): Uint8Array {
  const covered = new Uint8Array(length);
  for (const p of positions) covered.fill(1, p, p + GRAM);
  return covered;
}

function covers(positions: Iterable<number>, length: number): boolean {
  return coverage(positions, length).every((c) => c === 1);
}

/** A small set of sources whose grams together cover the form (greedy set cover). */
function coveringSources(bySource: Map<number, number[]>, length: number): number[] {
  const chosen: number[] = [];
  const covered = new Uint8Array(length);
  const gain = (positions: number[]) => {
    const cover = coverage(positions, length);
    let n = 0;
    for (let i = 0; i < length; i++) if (cover[i] === 1 && covered[i] === 0) n++;
    return { cover, n };
  };
  while (covered.some((c) => c === 0)) {
    let best: { source: number; cover: Uint8Array; n: number } | undefined;
    for (const [source, positions] of bySource) {
      const g = gain(positions);
      if (g.n > 0 && (!best || g.n > best.n)) best = { source, ...g };
    }
    if (!best) break;
    chosen.push(best.source);
    for (let i = 0; i < length; i++) if (best.cover[i] === 1) covered[i] = 1;
  }
  return chosen;
}
