import { readFileSync, type Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';

/**
 * Folders never walked: version control, dependency trees, virtualenvs,
 * vendored code, caches and build outputs. None of them holds a project's own
 * manifest, and together they are most of the files on a developer's disk.
 */
export const SKIPPED_DIRECTORIES: ReadonlySet<string> = new Set([
  '.git',
  '.hg',
  '.svn',
  'node_modules',
  'bower_components',
  '.pnpm-store',
  '.yarn',
  '.venv',
  'venv',
  '.virtualenv',
  '__pycache__',
  '.tox',
  '.nox',
  '.eggs',
  '.mypy_cache',
  '.pytest_cache',
  '.ruff_cache',
  'site-packages',
  'vendor',
  'third_party',
  'target',
  'build',
  'dist',
  'out',
  '.gradle',
  '.m2',
  '.next',
  '.nuxt',
  '.turbo',
  '.cache',
  '.parcel-cache',
  'coverage',
  '.idea',
  '.vscode',
  '.mr-agent',
  // test data: repositories inside them are what a test looks at, not what to set up
  'testdata',
  'fixtures',
  '__fixtures__',
]);

/** A file in a folder whose listing contains one of these is inside a virtualenv or conda env. */
const ENVIRONMENT_MARKERS = ['pyvenv.cfg', 'conda-meta'];

export interface WalkOptions {
  /** Folder depth below the root that is still listed (root = 0). */
  maxDepth?: number;
  /** Directory entries seen before the walk stops (marked `truncated`). */
  maxEntries?: number;
  /** How many folders are listed at once. */
  concurrency?: number;
}

export interface WalkResult {
  /** Relative POSIX paths of the files `wanted` accepted, sorted. */
  files: string[];
  directories: number;
  entries: number;
  truncated: boolean;
}

interface Rules {
  base: string;
  matcher: Ignore;
}

interface Pending {
  rel: string;
  depth: number;
  rules: readonly Rules[];
}

const DEFAULTS = { maxDepth: 12, maxEntries: 1_000_000, concurrency: 16 };

/**
 * Lists a repository's files of interest. Skips the folders above, symbolic
 * links, and whatever the `.gitignore` files inside `root` (and
 * `.git/info/exclude`) ignore; deeper `.gitignore` files take precedence, as
 * in git. `wanted(name, dir)` decides which files are returned; only those
 * (and folders) are checked against the ignore rules, which keeps the walk
 * cheap on large trees.
 */
export async function walkRepository(
  root: string,
  wanted: (name: string, dir: string) => boolean,
  options: WalkOptions = {},
): Promise<WalkResult> {
  const limits = { ...DEFAULTS, ...options };
  const result: WalkResult = { files: [], directories: 0, entries: 0, truncated: false };
  const rootRules = loadRules(root, '', ['.git/info/exclude']);
  const queue: Pending[] = [{ rel: '', depth: 0, rules: rootRules ? [rootRules] : [] }];

  const visit = async (item: Pending): Promise<void> => {
    const abs = item.rel ? path.join(root, item.rel) : root;
    let entries: Dirent[];
    try {
      entries = await readdir(abs, { withFileTypes: true });
    } catch {
      return; // unreadable folder: nothing to detect there
    }
    result.directories += 1;
    result.entries += entries.length;
    let hasGitignore = false;
    for (const entry of entries) {
      if (item.rel && ENVIRONMENT_MARKERS.includes(entry.name)) return;
      if (entry.name === '.gitignore') hasGitignore = true;
    }
    const own = hasGitignore ? loadRules(root, item.rel, ['.gitignore']) : undefined;
    const rules = own ? [...item.rules, own] : item.rules;
    const prefix = item.rel ? `${item.rel}/` : '';
    for (const entry of entries) {
      if (entry.isDirectory()) {
        if (SKIPPED_DIRECTORIES.has(entry.name) || item.depth >= limits.maxDepth) continue;
        const rel = prefix + entry.name;
        if (!isIgnored(rules, rel, true)) queue.push({ rel, depth: item.depth + 1, rules });
      } else if (wanted(entry.name, item.rel) && entry.isFile()) {
        const rel = prefix + entry.name;
        if (!isIgnored(rules, rel, false)) result.files.push(rel);
      }
    }
  };

  await drain(queue, limits.concurrency, visit, () => {
    if (result.entries < limits.maxEntries) return false;
    result.truncated = true;
    return true;
  });
  result.files.sort();
  return result;
}

/** Runs `visit` over a growing queue with at most `concurrency` calls in flight. */
async function drain<T>(
  queue: T[],
  concurrency: number,
  visit: (item: T) => Promise<void>,
  stop: () => boolean,
): Promise<void> {
  let active = 0;
  await new Promise<void>((resolve, reject) => {
    const pump = (): void => {
      if (stop()) queue.length = 0;
      while (active < concurrency && queue.length > 0) {
        const item = queue.pop() as T;
        active += 1;
        visit(item).then(
          () => {
            active -= 1;
            pump();
          },
          (error: unknown) => reject(error as Error),
        );
      }
      if (active === 0 && queue.length === 0) resolve();
    };
    pump();
  });
}

function loadRules(root: string, rel: string, files: string[]): Rules | undefined {
  const matcher = ignore();
  let any = false;
  for (const file of files) {
    try {
      matcher.add(readFileSync(path.join(root, rel, file), 'utf8'));
      any = true;
    } catch {
      // no such file
    }
  }
  return any ? { base: rel, matcher } : undefined;
}

/** Deepest rules first: the first file that ignores or re-includes the path decides. */
function isIgnored(rules: readonly Rules[], rel: string, directory: boolean): boolean {
  for (let i = rules.length - 1; i >= 0; i -= 1) {
    const { base, matcher } = rules[i]!;
    const sub = base ? rel.slice(base.length + 1) : rel;
    const verdict = matcher.test(directory ? `${sub}/` : sub);
    if (verdict.ignored) return true;
    if (verdict.unignored) return false;
  }
  return false;
}
