import type { Gitlab } from '@gitbeaker/rest';

/**
 * A synthetic merge request of about 2,000 diff lines across 30 files for
 * `/agent review` (the e2e tests and bench/review.bench.ts): 23 source
 * modules (some changed, some new), one renamed and changed, one deleted,
 * a binary image, a lockfile, a build output under dist/, a minified script
 * and a file the target branch's `.gitattributes` marks generated. The
 * fixture knows, by construction, which new-side lines each source file
 * adds, so a scripted reviewer can name findings on them (and off them) and
 * a test can tell what a suggestion should do.
 */

export const SOURCE_MODULES = 23;
const BASE_FUNCTIONS = 8;

export interface HeadFile {
  /** The file's lines in the merge request's head. */
  lines: string[];
  /** New-side line numbers (1-based) the change adds. */
  added: Set<number>;
}

export interface LargeChange {
  /** The target branch's files. */
  base: Record<string, string>;
  /** The change on the merge request's branch (null deletes). */
  head: Record<string, string | null>;
  /** Each reviewable file's head lines and added lines, by its new path. */
  reviewable: Map<string, HeadFile>;
  /** The files the review must leave out, with the reason it must give. */
  skipped: Record<string, string>;
  renamed: { from: string; to: string };
  deleted: string;
}

const pad = (n: number) => String(n).padStart(2, '0');

function fn(module: number, index: number, variant: 'base' | 'head'): string[] {
  const name = `m${pad(module)}_f${pad(index)}`;
  const factor = variant === 'base' ? index : index + 100;
  return [
    `export function ${name}(a, b) {`,
    `  const total = a * ${factor} + b;`,
    `  return total > ${index * 10} ? total - ${factor} : total;`,
    '}',
    '',
  ];
}

/** A module's lines with, for the head, which of them the change adds. */
function moduleFile(
  module: number,
  variant: 'base' | 'head',
  isNew: boolean,
): { lines: string[]; added: Set<number> } {
  const lines: string[] = [`// module ${pad(module)}: synthetic arithmetic helpers`, ''];
  const added = new Set<number>();
  const push = (more: string[], isAdded: boolean) => {
    for (const line of more) {
      lines.push(line);
      if (isAdded) added.add(lines.length);
    }
  };
  if (variant === 'base') {
    for (let i = 0; i < BASE_FUNCTIONS; i++) push(fn(module, i, 'base'), false);
    return { lines, added };
  }
  if (isNew) {
    for (let i = 0; i < 2; i++) added.add(i + 1);
    for (let i = 0; i < 18; i++) push(fn(module, i, 'head'), true);
    return { lines, added };
  }
  // functions 0-4 and 6 untouched, 5 and 7 rewritten (two lines each), 15 new at the end
  for (let i = 0; i < BASE_FUNCTIONS; i++) {
    if (i === 5 || i === 7) {
      const [open, body1, body2, close, blank] = fn(module, i, 'head');
      push([open!], false);
      push([body1!, body2!], true);
      push([close!, blank!], false);
    } else push(fn(module, i, 'base'), false);
  }
  for (let i = BASE_FUNCTIONS; i < BASE_FUNCTIONS + 15; i++) push(fn(module, i, 'head'), true);
  return { lines, added };
}

const text = (lines: string[]) => `${lines.join('\n')}\n`;

export function largeChange(): LargeChange {
  const base: Record<string, string> = {
    'README.md': '# app\n',
    // the target branch marks one folder generated (read as data, never through git)
    '.gitattributes': 'src/generated/** linguist-generated\n*.png binary\n',
  };
  const head: Record<string, string | null> = {};
  const reviewable = new Map<string, HeadFile>();
  for (let m = 1; m <= SOURCE_MODULES; m++) {
    const path = `src/mod_${pad(m)}.js`;
    const isNew = m % 6 === 0;
    if (!isNew) base[path] = text(moduleFile(m, 'base', false).lines);
    const after = moduleFile(m, 'head', isNew);
    head[path] = text(after.lines);
    reviewable.set(path, after);
  }
  // renamed and changed: the review anchors its findings on the new path
  const renamedBase = moduleFile(90, 'base', false).lines;
  const renamed = { from: 'src/legacy/old_name.js', to: 'src/lib/new_name.js' };
  base[renamed.from] = text(renamedBase);
  const renamedHead = [...renamedBase];
  renamedHead[13] = '  const total = a * 333 + b;';
  head[renamed.from] = null;
  head[renamed.to] = text(renamedHead);
  reviewable.set(renamed.to, { lines: renamedHead, added: new Set([14]) });
  const deleted = 'src/obsolete.js';
  base[deleted] = text(moduleFile(91, 'base', false).lines);
  head[deleted] = null;
  head['assets/logo.png'] = `\u0089PNG\r\n\u001a\n\u0000\u0000\u0000\rIHDR${'\u0000'.repeat(40)}`;
  head['package-lock.json'] = `${JSON.stringify(
    {
      name: 'app',
      lockfileVersion: 3,
      packages: Object.fromEntries(
        Array.from({ length: 12 }, (_, i) => [`node_modules/dep-${i}`, { version: `1.0.${i}` }]),
      ),
    },
    null,
    2,
  )}\n`;
  head['dist/app.js'] = text(
    Array.from({ length: 30 }, (_, i) => `export const built_${i} = ${i};`),
  );
  head['public/vendor.js'] = text([
    Array.from({ length: 40 }, (_, i) => `var v${i}=function(a){return a*${i}};`).join(''),
  ]);
  head['src/generated/schema.js'] = text(
    Array.from({ length: 40 }, (_, i) => `export const FIELD_${i} = 'field_${i}';`),
  );
  return {
    base,
    head,
    reviewable,
    skipped: {
      [deleted]: 'deleted',
      'assets/logo.png': 'binary, or no text diff',
      'package-lock.json': 'lockfile',
      'dist/app.js': 'build output',
      'public/vendor.js': 'minified',
      'src/generated/schema.js': 'marked generated in `.gitattributes`',
    },
    renamed,
    deleted,
  };
}

/** The added lines of a file in runs of consecutive lines (each run lies in one hunk). */
export function addedRuns(file: HeadFile): number[][] {
  const runs: number[][] = [];
  for (const n of [...file.added].sort((a, b) => a - b)) {
    const last = runs.at(-1);
    if (last && last.at(-1) === n - 1) last.push(n);
    else runs.push([n]);
  }
  return runs;
}

/** A small module with two swapped operators: what the review and thread tests review and fix. */
export const BUGGY_CALC = [
  'export function add(a, b) {',
  '  return a - b;',
  '}',
  '',
  'export function mul(a, b) {',
  '  return a + b;',
  '}',
  '',
].join('\n');

/**
 * A thread a person opens on a new-side line of the merge request's latest
 * diff version, as GitLab's UI does (the position names that version's
 * shas); its discussion id.
 */
export async function openDiffThread(
  api: Gitlab<false>,
  on: { project: number; iid: number },
  place: { path: string; line: number },
  body: string,
): Promise<string> {
  const [version] = await api.MergeRequests.allDiffVersions(on.project, on.iid);
  const thread = await api.MergeRequestDiscussions.create(on.project, on.iid, body, {
    position: {
      baseSha: version!.base_commit_sha,
      startSha: version!.start_commit_sha,
      headSha: version!.head_commit_sha,
      positionType: 'text',
      oldPath: place.path,
      newPath: place.path,
      newLine: String(place.line),
    },
  });
  return thread.id;
}
