/**
 * Which changed files a review leaves out, and why: files with nothing to
 * anchor a finding on (deleted, binary, renamed without a change) and files
 * produced rather than written (lockfiles, build output, minified code,
 * files the target branch's `.gitattributes` marks generated). Each is named
 * with its reason in the review's summary, so a person can look at them.
 */
import type { ChangedFile } from '../../../core/gitlab-port.ts';
import type { SkipReasonName } from '../../../report/notes/review-note.ts';
import { generatedByAttributes, type AttributeRules } from './gitattributes.ts';

export type SkipReason = SkipReasonName;

const LOCKFILES = new Set([
  'package-lock.json',
  'npm-shrinkwrap.json',
  'yarn.lock',
  'pnpm-lock.yaml',
  'bun.lock',
  'bun.lockb',
  'deno.lock',
  'Cargo.lock',
  'poetry.lock',
  'Pipfile.lock',
  'uv.lock',
  'pdm.lock',
  'conda-lock.yml',
  'Gemfile.lock',
  'composer.lock',
  'go.sum',
  'mix.lock',
  'pubspec.lock',
  'Podfile.lock',
  'packages.lock.json',
  'gradle.lockfile',
  'flake.lock',
]);

/** Build output: a `dist/` folder anywhere, and source maps. */
const BUILD_OUTPUT = /(^|\/)dist\/|\.(js|mjs|cjs|css)\.map$/;
const MINIFIED_NAME = /\.min\.(js|mjs|cjs|css)$/;
const SCRIPT_OR_STYLE = /\.(js|mjs|cjs|css)$/;
/** Average length of the added lines above which a script or style sheet counts as minified. */
const MINIFIED_LINE_CHARS = 110;

/** Whether the added lines of a script or style sheet read like minified code. */
function looksMinified(diff: string): boolean {
  let chars = 0;
  let lines = 0;
  for (const line of diff.split('\n')) {
    if (!line.startsWith('+')) continue;
    chars += line.length - 1;
    lines++;
  }
  return lines > 0 && chars / lines > MINIFIED_LINE_CHARS;
}

/** Why a file is produced rather than written; undefined when nothing says so. */
export function generatedReason(
  file: ChangedFile,
  attributes: AttributeRules,
): SkipReason | undefined {
  const marked = generatedByAttributes(file.newPath, attributes);
  if (marked === true) return 'attributes';
  // marked as written by hand: reviewed, whatever its name suggests
  if (marked === false) return undefined;
  const name = file.newPath.slice(file.newPath.lastIndexOf('/') + 1);
  if (LOCKFILES.has(name)) return 'lockfile';
  if (BUILD_OUTPUT.test(file.newPath)) return 'build';
  if (MINIFIED_NAME.test(name)) return 'minified';
  if (SCRIPT_OR_STYLE.test(name) && looksMinified(file.diff)) return 'minified';
  return undefined;
}

/** Why a changed file is not reviewed; undefined when it is. */
export function skipReason(file: ChangedFile, attributes: AttributeRules): SkipReason | undefined {
  if (file.status === 'deleted') return 'deleted';
  const generated = generatedReason(file, attributes);
  if (generated) return generated;
  if (file.diff.trim() === '' || /^Binary files .* differ$/m.test(file.diff.slice(0, 2000)))
    return file.status === 'renamed' && file.diff.trim() === '' ? 'renamed' : 'binary';
  return undefined;
}
