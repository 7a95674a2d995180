import { gitTrackedFiles } from './git-list.ts';
import { SKIPPED_DIRECTORIES, walkRepository, type WalkOptions } from './walk.ts';

/**
 * How the files are found. `auto`: from the git index when the folder is the
 * top of a git work tree (what a CI checkout holds), else by walking it.
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
  options: WalkOptions & { mode?: ListingMode } = {},
): Promise<Listing> {
  if (options.mode !== 'walk') {
    const tracked = await gitTrackedFiles(root);
    if (tracked) return filterTracked(tracked, wanted, options.maxDepth ?? 12);
  }
  const walked = await walkRepository(root, wanted, options);
  return {
    files: walked.files,
    entries: walked.entries,
    truncated: walked.truncated,
    source: 'walk',
  };
}

/** A cheap first filter on the name alone: most source files fail it without building their folder path. */
function mayBeWanted(name: string): boolean {
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return true; // Makefile, gradlew, .nvmrc-like names are decided by `wanted`
  const extension = name.slice(dot + 1);
  return !SOURCE_EXTENSIONS.has(extension);
}

const mayBeDocs = (rel: string, slash: number) =>
  slash < 0 || rel.startsWith('.github/') || rel.startsWith('docs/');

/** Extensions of files that are never environment files. */
const SOURCE_EXTENSIONS: ReadonlySet<string> = new Set(
  'ts tsx js jsx mjs cjs vue svelte go java kt scala pyi rb rs c h cc cpp hpp cs swift md rst html css scss less svg png jpg jpeg gif ico webp pdf sql sh bat proto snap csv tsv log map wasm jar class o so dll'.split(
    ' ',
  ),
);

/** Applies the walk's rules (skipped folders, depth) to the tracked paths. */
function filterTracked(tracked: string[], wanted: Wanted, maxDepth: number): Listing {
  const files: string[] = [];
  for (const rel of tracked) {
    const slash = rel.lastIndexOf('/');
    const name = slash < 0 ? rel : rel.slice(slash + 1);
    // README/CONTRIBUTING are `.md`: the prefilter lets the few places they are read through
    if (!mayBeWanted(name) && !mayBeDocs(rel, slash)) continue;
    const dir = slash < 0 ? '' : rel.slice(0, slash);
    if (!wanted(name, dir)) continue;
    const parts = dir ? dir.split('/') : [];
    if (parts.length > maxDepth || parts.some((p) => SKIPPED_DIRECTORIES.has(p))) continue;
    files.push(rel);
  }
  files.sort();
  return {
    files,
    entries: tracked.length,
    truncated: false,
    source: 'git-index',
  };
}
