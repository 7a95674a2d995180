import type { TrackedFiles } from '../../../core/tracked-files.ts';
import { SKIPPED_DIRECTORIES, walkRepository, type WalkOptions } from './walk.ts';

/**
 * How the files are found. `auto`: from the git index (the `tracked` port)
 * when the folder is the top of a git work tree (what a CI checkout holds),
 * else by walking it.
 * `walk`: always walk (sees untracked files; applies `.gitignore`).
 */
export type ListingMode = 'auto' | 'walk';

export interface Listing {
  files: string[];
  /** Directory entries listed (walk) or files tracked (git index). */
  entries: number;
  truncated: boolean;
  source: 'git-index' | 'walk';
}

type Wanted = (name: string, dir: string) => boolean;

export async function listRepository(
  root: string,
  wanted: Wanted,
  options: WalkOptions & { mode?: ListingMode; tracked?: TrackedFiles | undefined } = {},
): Promise<Listing> {
  if (options.mode !== 'walk' && options.tracked) {
    const tracked = await options.tracked(root);
    if (tracked !== undefined) return filterTracked(tracked, wanted, options.maxDepth ?? 12);
  }
  const walked = await walkRepository(root, wanted, options);
  return {
    files: walked.files,
    entries: walked.entries,
    truncated: walked.truncated,
    source: 'walk',
  };
}

/** Extensions of files that are never environment files. */
const SOURCE_EXTENSIONS =
  'ts tsx js jsx mjs cjs vue svelte go java kt scala pyi rb rs c h cc cpp hpp cs swift md rst html css scss less svg png jpg jpeg gif ico webp pdf sql sh bat proto snap csv tsv log map wasm jar class o so dll'.split(
    ' ',
  );

/** An extension of up to four characters as one number (its char codes and length): no string built. */
function extensionKey(text: string, from: number, to: number): number {
  let key = to - from;
  for (let i = from; i < to; i += 1) key = key * 128 + (text.charCodeAt(i) & 127);
  return key;
}
const SOURCE_KEYS: ReadonlySet<number> = new Set(
  SOURCE_EXTENSIONS.map((e) => extensionKey(e, 0, e.length)),
);

/**
 * A cheap first filter on the name alone: most source files fail it without
 * a string being made. `name` spans `[nameStart, end)` of `text`.
 */
function mayBeWanted(text: string, nameStart: number, end: number): boolean {
  const dot = text.lastIndexOf('.', end - 1);
  if (dot <= nameStart) return true; // Makefile, gradlew, .nvmrc-like names are decided by `wanted`
  if (end - dot - 1 > 4) return true;
  return !SOURCE_KEYS.has(extensionKey(text, dot + 1, end));
}

/** README/CONTRIBUTING are `.md`: the prefilter lets the few places they are read through. */
const mayBeDocs = (text: string, start: number, slash: number) =>
  slash < start || text.startsWith('.github/', start) || text.startsWith('docs/', start);

/** Applies the walk's rules (skipped folders, depth) to the tracked paths (NUL-separated `text`). */
function filterTracked(text: string, wanted: Wanted, maxDepth: number): Listing {
  const files: string[] = [];
  let entries = 0;
  for (let start = 0; start < text.length;) {
    let end = text.indexOf('\0', start);
    if (end < 0) end = text.length;
    if (end > start) {
      entries += 1;
      const slash = text.lastIndexOf('/', end - 1);
      const nameStart = slash >= start ? slash + 1 : start;
      if (mayBeWanted(text, nameStart, end) || mayBeDocs(text, start, slash))
        keepIfWanted(text.slice(start, end), wanted, maxDepth, files);
    }
    start = end + 1;
  }
  files.sort();
  return { files, entries, truncated: false, source: 'git-index' };
}

function keepIfWanted(rel: string, wanted: Wanted, maxDepth: number, files: string[]): void {
  const slash = rel.lastIndexOf('/');
  const name = slash < 0 ? rel : rel.slice(slash + 1);
  const dir = slash < 0 ? '' : rel.slice(0, slash);
  if (!wanted(name, dir)) return;
  const parts = dir ? dir.split('/') : [];
  if (parts.length > maxDepth || parts.some((p) => SKIPPED_DIRECTORIES.has(p))) return;
  files.push(rel);
}
