import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * docs/architecture.md is the newcomer's map: every path it names must exist.
 * In the layout table a bare file name (`git.ts`, `progress/state.ts`) is read
 * inside the folder(s) of its row, so a renamed or deleted file shows up here.
 */
const DOC = 'docs/architecture.md';

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const visit = (current: string) => {
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) visit(full);
      else out.push(full);
    }
  };
  if (existsSync(dir) && statSync(dir).isDirectory()) visit(dir);
  return out;
}

/** `code spans` of a line that look like paths or file names. */
function pathSpans(line: string): string[] {
  return [
    ...line.matchAll(/`([A-Za-z0-9_./-]+\.(?:ts|mjs|cjs)|[A-Za-z0-9_.-]+\/[A-Za-z0-9_./-]*)`/g),
  ]
    .map((m) => m[1]!)
    .filter((p) => !p.startsWith('.mr-agent/') && !p.startsWith('dist/') && !p.startsWith('refs/'));
}

function rowFolders(line: string): string[] {
  const firstCell = line.split('|')[1] ?? '';
  return [...firstCell.matchAll(/`([^`]+\/)`/g)].map((m) => m[1]!);
}

const ROOTS = ['src', 'test', 'test/support', 'scripts'];

function exists(p: string, folders: readonly string[]): boolean {
  if (existsSync(p)) return true;
  if (ROOTS.some((root) => existsSync(path.join(root, p)))) return true;
  // a name inside the row's folders, or anywhere below them
  for (const folder of folders) {
    if (existsSync(path.join(folder, p))) return true;
    if (!p.includes('/') && filesUnder(folder).some((f) => path.basename(f) === p)) return true;
  }
  return false;
}

describe('docs/architecture.md', () => {
  const text = readFileSync(DOC, 'utf8');

  it('every path and file name it names exists (read inside its table row’s folder)', () => {
    const missing: string[] = [];
    for (const [index, line] of text.split('\n').entries()) {
      const folders = line.startsWith('| `') ? rowFolders(line) : ['src', 'test'];
      for (const p of pathSpans(line)) {
        if (!exists(p, folders)) missing.push(`line ${index + 1}: ${p}`);
      }
    }
    expect(missing).to.deep.equal([]);
  });

  it('the layout table has a row for every folder of src/', () => {
    const rows = text
      .split('\n')
      .filter((l) => l.startsWith('| `src/'))
      .flatMap(rowFolders);
    const folders = readdirSync('src', { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => `src/${e.name}/`);
    const covered = (folder: string) => rows.some((r) => r === folder || folder.startsWith(r));
    expect(folders.filter((f) => !covered(f))).to.deep.equal([]);
  });
});
