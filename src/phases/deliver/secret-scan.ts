/**
 * Secret scanning before the commit: the staged change and the commit
 * message are searched for every secret value of the job. A hit blocks the
 * commit and the push: a secret masked in a pushed file would still be a
 * broken file, and one that slipped through masking would be public for good.
 *
 * Two searches, both linear in the size of the change:
 * - the Redactor's exact forms (plain, base64 at each offset, hex, reversed,
 *   URL- and JSON-escaped), as every other output is masked with;
 * - the normalised search of secret-forms.ts over the views of
 *   secret-views.ts: pieces of a secret anywhere in the change that together
 *   make it whole (split across files or lines), one character per line or
 *   per separator, rot13, base32, byte and code lists, escapes, URL-encoding,
 *   and what base64/hex runs and compressed streams (gzip, zlib, deflate, zip
 *   entries) hold, decompressed within a budget.
 *
 * Only what the change adds counts (and the names of the files): a change
 * that deletes a committed secret is welcome. A file whose text git could not
 * give as UTF-8 (a binary) is read from the checkout, its bytes checked to be
 * the staged blob's.
 */
import { createHash } from 'node:crypto';
import { realpath } from 'node:fs/promises';
import { ModelBehaviorError } from '../../errors/errors.ts';
import type { Redactor } from '../../log/redact.ts';
import type { CheckoutEntry, CheckoutReader } from '../../core/checkout-port.ts';
import type { Git } from './git.ts';
import { GRAM, GramHits, GramIndex, secretForms, SYMBOL } from './secret-forms.ts';
import {
  asBytes,
  compressedStreams,
  decodedRuns,
  InflateBudget,
  textViews,
  type View,
} from './secret-views.ts';

/** The diff of the index, every file as text (a secret in a "binary" file is found too). */
const STAGED_DIFF = [
  'diff',
  '--cached',
  '--text',
  '--no-renames',
  '--no-color',
  '--no-ext-diff',
  '--no-textconv',
];

export interface StagedFile {
  path: string;
  /** The file's part of the staged diff. */
  diff: string;
  /** The staged content, when the diff's text lost some of it (bytes that are not UTF-8). */
  bytes?: Buffer;
  /** Why the staged content could not be read to be scanned, when it could not. */
  unreadable?: string;
}

/**
 * The file a chunk of `diff --no-renames` is about, from its header
 * (`diff --git a/P b/P`, both sides the same; git quotes unusual names).
 */
function chunkPath(chunk: string): string {
  const header = chunk.slice('diff --git '.length, chunk.indexOf('\n'));
  const quoted = /^"a\/(.*)" "b\/\1"$/.exec(header);
  if (quoted) return quoted[1]!;
  const half = (header.length - 1) / 2;
  return Number.isInteger(half) && header.startsWith('a/') ? header.slice(2, half) : header;
}

/** The largest file read from the checkout to be scanned as bytes. */
const MAX_FILE_BYTES = 64 * 1024 * 1024;

/** The staged blob ids of the changed files (`diff --raw -z`), by path. */
async function stagedBlobs(git: Git): Promise<Map<string, string>> {
  const raw = await git.must([...STAGED_DIFF, '--raw', '-z', '--no-abbrev']);
  const parts = raw.split('\0');
  const blobs = new Map<string, string>();
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const fields = parts[i]!.replace(/^\n/, '').split(' ');
    if (fields.length >= 5 && /^1006[0-7]{2}$/.test(fields[1]!))
      blobs.set(parts[i + 1]!, fields[3]!);
  }
  return blobs;
}

/**
 * The file's bytes from the checkout, when they are exactly the staged blob
 * (git's object id of them matches); a reason otherwise. A symbolic link, a
 * FIFO or a file changed since staging is never taken for the blob.
 */
function stagedBytes(read: CheckoutEntry, blob: string | undefined): Buffer | string {
  if (!blob) return 'not a regular file in the index';
  if (read.kind === 'skip') return read.why;
  if (read.kind !== 'file') return 'not a regular file';
  if (read.size > MAX_FILE_BYTES) return `larger than ${MAX_FILE_BYTES} bytes`;
  const hash = createHash(blob.length === 64 ? 'sha256' : 'sha1')
    .update(`blob ${read.content.length}\0`)
    .update(read.content)
    .digest('hex');
  return hash === blob ? read.content : 'changed since it was staged';
}

/** The staged change, file by file; a file git could not give as text also as bytes. */
export async function stagedFiles(
  git: Git,
  repoDir: string,
  readCheckout: CheckoutReader,
): Promise<StagedFile[]> {
  const diff = await git.must(STAGED_DIFF);
  const files: StagedFile[] = diff
    .split(/^(?=diff --git )/m)
    .filter((chunk) => chunk.startsWith('diff --git '))
    .map((chunk) => ({ path: chunkPath(chunk), diff: chunk }));
  const lossy = files.filter(
    (f) => f.diff.includes('\uFFFD') && !/^deleted file mode/m.test(f.diff),
  );
  if (lossy.length === 0) return files;
  const blobs = await stagedBlobs(git);
  // as the command user once the checkout is theirs: a swapped folder reaches nothing more
  const read = await readCheckout(
    await realpath(repoDir),
    lossy.map((f) => f.path),
    { cap: MAX_FILE_BYTES + 1 },
  );
  for (const [i, file] of lossy.entries()) {
    const bytes = stagedBytes(read[i]!, blobs.get(file.path));
    if (typeof bytes === 'string') file.unreadable = bytes;
    else file.bytes = bytes;
  }
  return files;
}

function addedLines(diff: string): string[] {
  return diff
    .split('\n')
    .filter((line) => line.startsWith('+') && !line.startsWith('+++ '))
    .map((line) => line.slice(1));
}

/** How deep decoded content is decoded again (base64 of gzip of base64 …). */
const MAX_DEPTH = 3;

/** One scan of a change: the sources are the files, then the commit message. */
class ChangeScan {
  private readonly index: GramIndex;
  readonly hits: GramHits;
  readonly budget = new InflateBudget();
  /** Sources holding compressed content beyond the budget. */
  readonly cut = new Set<number>();
  private source = 0;

  constructor(secrets: readonly string[]) {
    this.index = new GramIndex(secretForms(secrets));
    this.hits = new GramHits(this.index);
  }

  from(source: number): this {
    this.source = source;
    return this;
  }

  /** Every gram of a secret form in the view's letters and digits. */
  private search(view: View): void {
    const { text, step } = view;
    // the gram's key in two small integers: its last four symbols, and the two before
    let low = 0;
    let high = 0;
    let run = 0;
    for (let i = view.start; i < text.length; i += step) {
      const symbol = SYMBOL[text.charCodeAt(i)]!;
      if (symbol < 0) continue;
      high = ((high << 6) | (low >>> 18)) & 0xfff;
      low = ((low << 6) | symbol) & 0xffffff;
      if (++run < GRAM || !this.index.mayHold(low)) continue;
      const places = this.index.lookup(high * 0x1000000 + low);
      if (places) for (const place of places) this.hits.add(place, this.source);
    }
  }

  /** A text: all its views, then what its encoded runs hold. */
  text(text: string, depth = 0): void {
    for (const view of textViews(text)) {
      this.search(view);
      if (view.step === 1 && view.text !== text) this.streams(asBytes(view.text), depth, false);
    }
    if (depth < MAX_DEPTH) for (const bytes of decodedRuns(text)) this.decoded(bytes, depth + 1);
  }

  /**
   * Bytes decoded from a run: searched as they are, and for compressed
   * streams with a header (a raw deflate stream has none; trying one at the
   * start of every run of ordinary text would cost more than all the rest).
   */
  private decoded(bytes: Buffer, depth: number): void {
    this.search({ text: bytes.toString('latin1'), start: 0, step: 1 });
    this.streams(bytes, depth, false);
  }

  /** A file's content as bytes: a text of its own, and its compressed streams. */
  bytes(bytes: Buffer, depth = 0): void {
    this.text(bytes.toString('latin1'), depth);
    this.streams(bytes, depth, true);
  }

  private streams(bytes: Buffer, depth: number, rawAtStart: boolean): void {
    if (depth >= MAX_DEPTH) return;
    for (const stream of compressedStreams(bytes)) {
      if (stream.kind === 'raw' && stream.offset === 0 && !rawAtStart) continue;
      const { out, cut } = this.budget.inflate(bytes, stream);
      // a stream cut at a limit withholds its file anyway: scanning its start would only cost time
      if (cut) this.cut.add(this.source);
      else if (out.length > 0) this.bytes(out, depth + 1);
    }
  }
}

export interface SecretFinding {
  /** Staged files holding a secret (names, never the value). */
  files: string[];
  /** Whether the commit message held one. */
  inMessage: boolean;
  /** Files that could not be scanned whole (too much compressed content, unreadable bytes). */
  unscanned: string[];
}

/**
 * Where the staged change and the message hold a secret of the redactor's,
 * in any form the scan knows. Secrets of fewer than 8 letters and digits are
 * found only in the Redactor's exact forms.
 */
export function scanChange(
  files: readonly StagedFile[],
  message: string,
  redactor: Redactor,
): SecretFinding {
  const scan = new ChangeScan(redactor.values);
  const exact = new Set<number>();
  files.forEach((file, source) => {
    const added = addedLines(file.diff);
    const texts = [file.path, added.join('\n'), added.join('')];
    if (texts.some((text) => redactor.findSecret(text))) exact.add(source);
    scan.from(source).text(`${file.path}\n${texts[1]}`);
    if (file.bytes) scan.bytes(file.bytes);
  });
  const messageSource = files.length;
  if (redactor.findSecret(message)) exact.add(messageSource);
  scan.from(messageSource).text(message);
  const found = new Set([...exact, ...scan.hits.sourcesWithSecrets()]);
  const withSecret = files.filter((_f, i) => found.has(i));
  return {
    files: withSecret.map((f) => f.path),
    inMessage: found.has(messageSource),
    unscanned: files
      .filter((f, i) => !found.has(i) && (scan.cut.has(i) || f.unreadable !== undefined))
      .map((f) => f.path),
  };
}

/** Whether delivery must stop. */
export function blocksDelivery(finding: SecretFinding): boolean {
  return finding.files.length > 0 || finding.inMessage || finding.unscanned.length > 0;
}

const quotedName = (file: string) => `\`${file.replace(/`/g, "'")}\``;

/** What a hit tells the note: where a secret was withheld, never the value. */
export function withheldText(finding: SecretFinding): string {
  const where = [
    ...finding.files.map(quotedName),
    ...(finding.inMessage ? ['the commit message'] : []),
  ].join(', ');
  const held = where
    ? `a secret was withheld: ${where} held the value of a secret of this job (plain or encoded)`
    : 'the change was withheld';
  const unscanned = finding.unscanned.length
    ? `; ${finding.unscanned.map(quotedName).join(', ')} could not be scanned whole for secrets (more compressed content than the scan unpacks, or its staged bytes could not be read)`
    : '';
  return `${held}${unscanned}; nothing was committed or pushed`;
}

/** The error that stops delivery on a hit (the run fails, its note says why). */
export function secretWithheldError(finding: SecretFinding): ModelBehaviorError {
  return new ModelBehaviorError(withheldText(finding), {
    where: 'delivery',
    hintKey: 'hint.deliver.secretWithheld',
  });
}
