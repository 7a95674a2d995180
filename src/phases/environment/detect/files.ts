/**
 * The files detection looks for (each environment's manifests, lockfiles,
 * version files and wrappers, declared in its folder, plus the CI, task-runner
 * and docs files read as evidence), and how a repository path maps to the
 * folder it describes.
 */
import type { EnvironmentName } from '../../../core/environment.ts';

export type FileRole =
  | 'manifest'
  | 'lockfile'
  | 'version'
  | 'support'
  | 'wrapper'
  | 'common'
  /** CI configuration and task runners: read for evidence, never a project. */
  | 'ci'
  /** README and CONTRIBUTING: read for their install and test commands. */
  | 'docs';
export type FileEnvironment = EnvironmentName | 'any';

/** Evidence files read at the repository root only (CI configuration, task runners). */
const ROOT_EVIDENCE: ReadonlySet<string> = new Set([
  '.gitlab-ci.yml',
  '.travis.yml',
  'tox.ini',
  'noxfile.py',
  'justfile',
  'Justfile',
  '.justfile',
]);
const DOCS_FILE = /^(?:readme|contributing|development|install)(?:\.(?:md|markdown|rst|txt))?$/i;
const CI_FOLDERS: ReadonlyMap<string, RegExp> = new Map([
  ['.github/workflows', /\.ya?ml$/],
  ['.circleci', /^config\.ya?ml$/],
  ['.gitlab/ci', /\.ya?ml$/],
]);

/** Whether `name` in `dir` is a CI, task-runner or docs file read for evidence (see evidence.ts). */
export function evidenceRole(name: string, dir: string): 'ci' | 'docs' | undefined {
  if (dir === '' || dir === '.') {
    if (ROOT_EVIDENCE.has(name)) return 'ci';
    if (DOCS_FILE.test(name)) return 'docs';
    return undefined;
  }
  if (dir === '.github' || dir === 'docs')
    return /^contributing(?:\.\w+)?$/i.test(name) ? 'docs' : undefined;
  return CI_FOLDERS.get(dir)?.test(name) ? 'ci' : undefined;
}

export function lastSegment(dir: string): string {
  const slash = dir.lastIndexOf('/');
  return slash < 0 ? dir : dir.slice(slash + 1);
}

/**
 * The files of one environment, by their key in the folder they describe.
 * Exact names cover most; the hooks cover files found by pattern and files
 * that describe a folder above their own.
 */
export interface FileSpec {
  environment: EnvironmentName;
  /** Exact keys (`go.mod`, `.mvn/jvm.config`) and their role. */
  roles: Readonly<Record<string, FileRole>>;
  /** Files found by pattern rather than by name, given the name and its folder. */
  wanted?: (name: string, dir: string) => boolean;
  /** The role of a key found by `wanted` (undefined: not this environment's). */
  describe?: (key: string) => FileRole | undefined;
  /** Segments, counted from the end, that make the key of a file describing a folder above its own. */
  keyLength?: (parts: readonly string[]) => number | undefined;
}

/** What detection asks about a repository path, answered from every environment's files. */
export interface FileTable {
  /** Whether the file `name` in folder `dir` (relative, POSIX) is one detection reads. */
  isWantedFile(name: string, dir: string): boolean;
  /** Role and environment of a file by its key in its folder (see `ownerOf`). */
  describeFile(key: string): { role: FileRole; environment: FileEnvironment };
  /**
   * The folder a file describes and its key there: `api/requirements/dev.txt`
   * belongs to `api` as `requirements/dev.txt`; `gradle/wrapper/…properties`
   * to the folder above `gradle/`. The root folder is `.`.
   */
  ownerOf(rel: string): { dir: string; key: string };
}

/** The file table of the given environments (the registry's, or a test's). */
export function fileTable(specs: readonly FileSpec[]): FileTable {
  const roles = new Map<string, readonly [FileRole, FileEnvironment]>();
  for (const spec of specs)
    for (const [key, role] of Object.entries(spec.roles)) roles.set(key, [role, spec.environment]);
  for (const [key, role] of COMMON_FILES) roles.set(key, [role, 'any']);
  return {
    isWantedFile(name, dir) {
      if (roles.has(name)) return true;
      if (evidenceRole(name, dir)) return true;
      return specs.some((spec) => spec.wanted?.(name, dir) === true);
    },
    describeFile(key) {
      const known = roles.get(key);
      if (known) return { role: known[0], environment: known[1] };
      const slash = key.lastIndexOf('/');
      const evidence = evidenceRole(key.slice(slash + 1), slash < 0 ? '' : key.slice(0, slash));
      if (evidence) return { role: evidence, environment: 'any' };
      for (const spec of specs) {
        const role = spec.describe?.(key);
        if (role) return { role, environment: spec.environment };
      }
      return { role: 'common', environment: 'any' };
    },
    ownerOf(rel) {
      const parts = rel.split('/');
      let length = 1;
      for (const spec of specs) {
        const own = spec.keyLength?.(parts);
        if (own !== undefined) {
          length = own;
          break;
        }
      }
      const keep = parts.length - length;
      return { dir: parts.slice(0, keep).join('/') || '.', key: parts.slice(keep).join('/') };
    },
  };
}

/** Files of any language: version managers, containers, task runners. */
const COMMON_FILES: readonly (readonly [string, FileRole])[] = [
  ['.tool-versions', 'version'],
  ['Dockerfile', 'common'],
  ['docker-compose.yml', 'common'],
  ['docker-compose.yaml', 'common'],
  ['compose.yaml', 'common'],
  ['compose.yml', 'common'],
  ['Makefile', 'common'],
  ['mise.toml', 'version'],
  ['.mise.toml', 'version'],
];

/**
 * Folders that never hold a project: hidden ones (`.github`, `.devcontainer`)
 * and CI helper folders. Their files may still be evidence.
 */
export function isProjectFolder(dir: string): boolean {
  if (dir === '.') return true;
  return !dir.split('/').some((p) => p.startsWith('.') || p === 'ci');
}

/** `a/b` → 2, `.` → 0. */
export function depthOf(dir: string): number {
  return dir === '.' ? 0 : dir.split('/').length;
}

/** Whether folder `inner` is `outer` or below it. */
export function isWithin(inner: string, outer: string): boolean {
  return outer === '.' || inner === outer || inner.startsWith(`${outer}/`);
}
