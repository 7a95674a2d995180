/**
 * The files detection looks for (seed 000 §9.1, plus version files and
 * wrappers), and how a repository path maps to the folder it describes.
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

const ROLES: ReadonlyMap<string, readonly [FileRole, FileEnvironment]> = new Map<
  string,
  readonly [FileRole, FileEnvironment]
>([
  // python
  ['requirements.txt', ['manifest', 'python']],
  ['pyproject.toml', ['manifest', 'python']],
  ['setup.py', ['manifest', 'python']],
  ['setup.cfg', ['support', 'python']],
  ['Pipfile', ['manifest', 'python']],
  ['Pipfile.lock', ['lockfile', 'python']],
  ['poetry.lock', ['lockfile', 'python']],
  ['uv.lock', ['lockfile', 'python']],
  ['pdm.lock', ['lockfile', 'python']],
  ['.python-version', ['version', 'python']],
  ['runtime.txt', ['version', 'python']],
  // conda
  ['environment.yml', ['manifest', 'miniforge']],
  ['environment.yaml', ['manifest', 'miniforge']],
  ['condaenv.yaml', ['manifest', 'miniforge']],
  ['condaenv.yml', ['manifest', 'miniforge']],
  // node
  ['package.json', ['manifest', 'node']],
  ['package-lock.json', ['lockfile', 'node']],
  ['npm-shrinkwrap.json', ['lockfile', 'node']],
  ['yarn.lock', ['lockfile', 'node']],
  ['pnpm-lock.yaml', ['lockfile', 'node']],
  ['bun.lock', ['lockfile', 'node']],
  ['bun.lockb', ['lockfile', 'node']],
  ['pnpm-workspace.yaml', ['support', 'node']],
  ['.yarnrc.yml', ['support', 'node']],
  ['.nvmrc', ['version', 'node']],
  ['.node-version', ['version', 'node']],
  // java
  ['pom.xml', ['manifest', 'java']],
  ['build.gradle', ['manifest', 'java']],
  ['build.gradle.kts', ['manifest', 'java']],
  ['settings.gradle', ['manifest', 'java']],
  ['settings.gradle.kts', ['manifest', 'java']],
  ['mvnw', ['wrapper', 'java']],
  ['gradlew', ['wrapper', 'java']],
  ['system.properties', ['version', 'java']],
  ['.sdkmanrc', ['version', 'java']],
  ['.java-version', ['version', 'java']],
  ['.mvn/jvm.config', ['support', 'java']],
  // go
  ['go.mod', ['manifest', 'go']],
  ['go.work', ['manifest', 'go']],
  ['go.sum', ['lockfile', 'go']],
  ['go.work.sum', ['lockfile', 'go']],
  // any language
  ['.tool-versions', ['version', 'any']],
  ['Dockerfile', ['common', 'any']],
  ['docker-compose.yml', ['common', 'any']],
  ['docker-compose.yaml', ['common', 'any']],
  ['compose.yaml', ['common', 'any']],
  ['compose.yml', ['common', 'any']],
  ['Makefile', ['common', 'any']],
  ['mise.toml', ['version', 'any']],
  ['.mise.toml', ['version', 'any']],
]);

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

/** `requirements-dev.txt`, `test_requirements.txt`, `requirements.in` … (Renovate's pattern, widened). */
const REQUIREMENTS_FILE = /^(?:[\w-]+[-_.])?requirements(?:[-_.][\w-]+)?\.(?:txt|in)$/i;

function lastSegment(dir: string): string {
  const slash = dir.lastIndexOf('/');
  return slash < 0 ? dir : dir.slice(slash + 1);
}

/** Whether the file `name` in folder `dir` (relative, POSIX) is one detection reads. */
export function isWantedFile(name: string, dir: string): boolean {
  if (ROLES.has(name)) return true;
  if (evidenceRole(name, dir)) return true;
  if (name === 'jvm.config') return lastSegment(dir) === '.mvn';
  if (name.endsWith('.gradle.kts') || name.endsWith('.gradle')) return isConventionFolder(dir);
  if (name.includes('equirement') && REQUIREMENTS_FILE.test(name)) return true;
  if (name.endsWith('.txt') || name.endsWith('.in')) return lastSegment(dir) === 'requirements';
  if (name.endsWith('-wrapper.properties')) return lastSegment(dir) === 'wrapper';
  if (name.endsWith('.versions.toml')) return lastSegment(dir) === 'gradle';
  return false;
}

/** Role and environment of a file by its key in its folder (see `ownerOf`). */
export function describeFile(key: string): { role: FileRole; environment: FileEnvironment } {
  const known = ROLES.get(key);
  if (known) return { role: known[0], environment: known[1] };
  const slash = key.lastIndexOf('/');
  const evidence = evidenceRole(key.slice(slash + 1), slash < 0 ? '' : key.slice(0, slash));
  if (evidence) return { role: evidence, environment: 'any' };
  if (CONVENTION_KEY.test(key)) return { role: 'support', environment: 'java' };
  if (CONDA_ALTERNATIVE.test(key)) return { role: 'manifest', environment: 'miniforge' };
  if (key.endsWith('-wrapper.properties') || key.endsWith('.versions.toml'))
    return { role: 'support', environment: 'java' };
  return { role: 'manifest', environment: 'python' }; // requirements files
}

/**
 * The folder a file describes and its key there: `api/requirements/dev.txt`
 * belongs to `api` as `requirements/dev.txt`; `gradle/wrapper/…properties`
 * to the folder above `gradle/`. The root folder is `.`.
 */
export function ownerOf(rel: string): { dir: string; key: string } {
  const parts = rel.split('/');
  const name = parts[parts.length - 1]!;
  let keep = parts.length - 1;
  const parent = parts[keep - 1];
  const convention = parts.findIndex((p) => CONVENTION_FOLDERS.has(p));
  if (convention >= 0 && /\.gradle(?:\.kts)?$/.test(name)) keep = convention;
  else if (parent === 'requirements' && /\.(?:txt|in)$/.test(name)) keep -= 1;
  else if (CONDA_ALTERNATIVE.test(`${parent}/${name}`)) keep -= 1;
  else if (parent === '.mvn' && name === 'jvm.config') keep -= 1;
  else if (parent === 'wrapper' && parts[keep - 2] === 'gradle') keep -= 2;
  else if (parent === 'wrapper' && parts[keep - 2] === '.mvn') keep -= 2;
  else if (parent === 'gradle' && name.endsWith('.versions.toml')) keep -= 1;
  const dir = parts.slice(0, keep).join('/') || '.';
  const key = parts.slice(keep).join('/');
  return { dir, key };
}

/**
 * Gradle convention plugins: scripts in `buildSrc/` and `build-logic/` belong
 * to the build that uses them (their toolchain settings are the build's), not
 * to a project of their own.
 */
const CONVENTION_FOLDERS: ReadonlySet<string> = new Set(['buildSrc', 'build-logic']);
const CONVENTION_KEY = /^(?:buildSrc|build-logic)\/.*\.gradle(?:\.kts)?$/;
/** repo2docker's convention: `binder/environment.yml` describes the repository root. */
const CONDA_ALTERNATIVE = /^\.?binder\/(?:environment|condaenv)\.ya?ml$/;

function isConventionFolder(dir: string): boolean {
  return dir.split('/').some((p) => CONVENTION_FOLDERS.has(p));
}

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
