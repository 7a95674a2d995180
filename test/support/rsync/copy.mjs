// Copying and deleting for the rsync stand-in: files keep their mode and times,
// symbolic links stay links, excluded paths are neither copied nor descended into.
import {
  chmodSync,
  copyFileSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  utimesSync,
} from 'node:fs';
import path from 'node:path';

const join = (rel, name) => (rel === '' ? name : `${rel}/${name}`);
const relOf = (to) => (to === '.' ? '' : to.replace(/\/+$/, ''));

function statOrNull(file) {
  try {
    return lstatSync(file);
  } catch {
    return null;
  }
}

/** Replaces whatever is at `target` when its kind differs from the source's. */
function clearIfOtherKind(target, stat) {
  const there = statOrNull(target);
  if (!there) return;
  const same =
    (there.isDirectory() && stat.isDirectory()) ||
    (there.isFile() && stat.isFile()) ||
    (there.isSymbolicLink() && stat.isSymbolicLink());
  if (!same || stat.isSymbolicLink()) rmSync(target, { recursive: true, force: true });
}

function copyOne(from, target, stat) {
  clearIfOtherKind(target, stat);
  if (stat.isSymbolicLink()) symlinkSync(readlinkSync(from), target);
  else if (stat.isFile()) {
    copyFileSync(from, target);
    chmodSync(target, stat.mode & 0o7777);
    utimesSync(target, stat.atime, stat.mtime);
  } else if (stat.isDirectory()) {
    mkdirSync(target, { recursive: true });
    chmodSync(target, stat.mode & 0o7777);
  }
}

function copyTree(ctx, from, target, rel) {
  const stat = lstatSync(from);
  if (rel !== '' && ctx.excluded(rel, stat.isDirectory())) return;
  if (stat.isDirectory() && !ctx.recursive) {
    process.stderr.write(`skipping directory ${rel || from}\n`);
    return;
  }
  copyOne(from, target, stat);
  if (!stat.isDirectory()) return;
  for (const name of readdirSync(from).sort()) {
    copyTree(ctx, path.join(from, name), path.join(target, name), join(rel, name));
  }
}

/** Copies `from` to `<destRoot>/<to>`, making the folders above it. */
export function copyEntry(ctx, from, destRoot, to) {
  const target = path.join(destRoot, to);
  mkdirSync(path.dirname(target), { recursive: true });
  copyTree(ctx, from, target, relOf(path.normalize(to)));
}

/** `--delete`: removes what the destination folder has and the source has not (or excludes). */
export function removeUnlisted(ctx, srcDir, destDir, rel, deleteExcluded) {
  const dest = path.join(destDir, rel);
  const there = statOrNull(dest);
  if (!there?.isDirectory()) return;
  for (const name of readdirSync(dest)) {
    const childRel = join(rel, name);
    const destStat = lstatSync(path.join(dest, name));
    const isDir = destStat.isDirectory();
    const excluded = ctx.excluded(childRel, isDir);
    if (excluded && !deleteExcluded) continue;
    const srcStat = statOrNull(path.join(srcDir, childRel));
    if (!srcStat || excluded) rmSync(path.join(dest, name), { recursive: true, force: true });
    else if (isDir && srcStat.isDirectory()) {
      removeUnlisted(ctx, srcDir, destDir, childRel, deleteExcluded);
    }
  }
}
