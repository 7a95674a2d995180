import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { RepoRoot } from '../core/tool.ts';

/**
 * The path sandbox of the file tools: a path given by the model must stay
 * inside the repository after normalisation and after following symbolic
 * links, and must not touch `.git`. Violations are plain errors whose message
 * goes back to the model.
 */
export class SandboxViolation extends Error {
  override readonly name = 'SandboxViolation';
}

export async function repoRoot(dir: string): Promise<RepoRoot> {
  const absolute = path.resolve(dir);
  return { dir: absolute, real: await realpath(absolute) };
}

/** `child` relative to `parent` when it lies inside it (or is it), else undefined. */
function inside(parent: string, child: string): string | undefined {
  const rel = path.relative(parent, child);
  if (rel === '') return '';
  if (rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
  return rel;
}

function touchesGit(rel: string): boolean {
  return rel.split(path.sep).some((part) => part.toLowerCase() === '.git');
}

/** The real path of `target`, resolving links on its longest existing prefix. */
async function realpathOfLongestPrefix(target: string): Promise<string> {
  const rest: string[] = [];
  let current = target;
  for (;;) {
    try {
      const real = await realpath(current);
      return path.join(real, ...rest.reverse());
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      const dangling = await lstat(current).then(
        (s) => s.isSymbolicLink(),
        () => false,
      );
      if (dangling) throw new SandboxViolation('is a symbolic link to a missing target');
      const parent = path.dirname(current);
      if (parent === current) return target;
      rest.push(path.basename(current));
      current = parent;
    }
  }
}

/** Why a path cannot be resolved, for errors the file system gives while following it. */
const UNRESOLVABLE: Record<string, string> = {
  ELOOP: 'its symbolic links form a loop',
  ENAMETOOLONG: 'the path or one of its names is too long',
  ENOTDIR: 'a part of the path that should be a folder is a file',
  EACCES: 'a folder on the way cannot be read',
};

/** Resolves a model-given path to an absolute path inside the repository, or throws. */
export async function resolveInRepo(root: RepoRoot, input: string): Promise<string> {
  if (input.trim() === '') throw new SandboxViolation('the path is empty');
  if (input.includes('\0')) throw new SandboxViolation('the path contains a NUL character');
  const candidate = path.isAbsolute(input) ? path.normalize(input) : path.resolve(root.dir, input);
  const rel = inside(root.dir, candidate) ?? inside(root.real, candidate);
  if (rel === undefined)
    throw new SandboxViolation(`${input}: is outside the repository; use a path relative to it`);
  if (touchesGit(rel)) throw new SandboxViolation(`${input}: the .git folder is off limits`);
  let real: string;
  try {
    real = await realpathOfLongestPrefix(path.join(root.real, rel));
  } catch (error) {
    if (error instanceof SandboxViolation) throw new SandboxViolation(`${input}: ${error.message}`);
    const why = UNRESOLVABLE[(error as NodeJS.ErrnoException).code ?? ''];
    if (why) throw new SandboxViolation(`${input}: ${why}`);
    throw error;
  }
  const realRel = inside(root.real, real);
  if (realRel === undefined)
    throw new SandboxViolation(`${input}: leads through a symbolic link to outside the repository`);
  if (touchesGit(realRel))
    throw new SandboxViolation(`${input}: leads through a symbolic link into .git`);
  return real;
}

/** The repository-relative form of an absolute path inside it (for messages). */
export function displayPath(root: RepoRoot, absolute: string): string {
  const rel = inside(root.real, absolute) ?? inside(root.dir, absolute);
  return rel === undefined || rel === '' ? '.' : rel.split(path.sep).join('/');
}
