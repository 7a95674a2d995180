import path from 'node:path';
import picomatch from 'picomatch';

/**
 * Whether a folder (relative to the workspace root, POSIX, no `./`) is a
 * member of the build. The build says so: Maven `<modules>`, Gradle
 * `settings` includes, npm/yarn/pnpm workspace globs, `go.work` `use`, uv
 * workspace members.
 */
export type MemberTest = (dir: string) => boolean;

function clean(entry: string): string {
  const trimmed = entry.trim().replace(/\\/g, '/');
  const negated = trimmed.startsWith('!');
  const body = path.posix.normalize(negated ? trimmed.slice(1) : trimmed).replace(/\/+$/, '');
  return `${negated ? '!' : ''}${body === '.' ? '' : body.replace(/^\.\//, '')}`;
}

/** Globs with `!` exclusions (pnpm, uv `exclude`); undefined when nothing is included. */
export function globMembers(patterns: unknown, excluded: unknown = []): MemberTest | undefined {
  const all = [...strings(patterns), ...strings(excluded).map((p) => `!${p}`)].map(clean);
  const include = all.filter((p) => p && !p.startsWith('!'));
  if (include.length === 0) return undefined;
  const exclude = all.filter((p) => p.startsWith('!')).map((p) => p.slice(1));
  const isIn = picomatch(include);
  const isOut = exclude.length > 0 ? picomatch(exclude) : () => false;
  return (dir) => isIn(dir) && !isOut(dir);
}

/** Exact folders (Maven modules, Gradle includes, `go.work` `use`); undefined when none. */
export function exactMembers(dirs: string[]): MemberTest | undefined {
  const set = new Set(dirs.map(clean).filter(Boolean));
  return set.size > 0 ? (dir) => set.has(dir) : undefined;
}

/** The folder of `inner` relative to `outer` (both repository-relative, `.` is the root). */
export function relativeDir(inner: string, outer: string): string {
  return outer === '.' ? inner : inner.slice(outer.length + 1);
}

export function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}
