/**
 * Secret scanning before the commit (issue 19 §3): the staged change and the
 * commit message are searched for every secret value of the job in every form
 * the Redactor knows (plain, base64 at each offset, base64url, hex, reversed,
 * URL- and JSON-escaped). A hit blocks the commit and the push: a secret
 * masked in a pushed file would still be a broken file, and one that slipped
 * through masking would be public for good.
 *
 * Only the lines the change adds count (and the names of the files): a change
 * that deletes a committed secret is welcome. The added lines of a file are
 * also searched joined without line breaks, so base64 wrapped at 76
 * characters is found too.
 */
import { ModelBehaviorError } from '../../errors/errors.ts';
import type { Redactor } from '../../log/redact.ts';
import type { Git } from './git.ts';

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

/** The staged change, file by file (one git call). */
export async function stagedFiles(git: Git): Promise<StagedFile[]> {
  const diff = await git.must(STAGED_DIFF);
  return diff
    .split(/^(?=diff --git )/m)
    .filter((chunk) => chunk.startsWith('diff --git '))
    .map((chunk) => ({ path: chunkPath(chunk), diff: chunk }));
}

function addedText(diff: string): string[] {
  const added = diff
    .split('\n')
    .filter((line) => line.startsWith('+') && !line.startsWith('+++ '))
    .map((line) => line.slice(1));
  return [added.join('\n'), added.join('')];
}

/** The staged files whose name or added lines hold a secret. */
export function filesWithSecrets(files: readonly StagedFile[], redactor: Redactor): string[] {
  return files
    .filter(
      (file) =>
        redactor.findSecret(file.path) ||
        addedText(file.diff).some((text) => redactor.findSecret(text)),
    )
    .map((file) => file.path);
}

export interface SecretFinding {
  /** Staged files holding a secret (names, never the value). */
  files: string[];
  /** Whether the commit message held one. */
  inMessage: boolean;
}

/** What a hit tells the note: where a secret was withheld, never the value. */
export function withheldText(finding: SecretFinding): string {
  const where = [
    ...finding.files.map((f) => `\`${f.replace(/`/g, "'")}\``),
    ...(finding.inMessage ? ['the commit message'] : []),
  ].join(', ');
  return `a secret was withheld: ${where} held the value of a secret of this job (plain or encoded); nothing was committed or pushed`;
}

/** The error that stops delivery on a hit (the run fails, its note says why). */
export function secretWithheldError(finding: SecretFinding, patchPath: string): ModelBehaviorError {
  return new ModelBehaviorError(withheldText(finding), {
    where: 'delivery',
    hint: `A command or the model wrote a secret of the job into the change; this is what a prompt injection would do. The rest of the change (without those files) is in ${patchPath} in the job artifacts.`,
  });
}
