/**
 * The files detection looks for (seed 000 §9.1, plus version files and
 * wrappers), and how a repository path maps to the folder it describes.
 */
import type { EnvironmentName } from '../../../core/environment.ts';

export type FileRole = 'manifest' | 'lockfile' | 'version' | 'support' | 'wrapper' | 'common';
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
]);

/** `requirements-dev.txt`, `test_requirements.txt`, `requirements.in` … (Renovate's pattern, widened). */
const REQUIREMENTS_FILE = /^(?:[\w-]+[-_.])?requirements(?:[-_.][\w-]+)?\.(?:txt|in)$/i;

function lastSegment(dir: string): string {
  const slash = dir.lastIndexOf('/');
  return slash < 0 ? dir : dir.slice(slash + 1);
}

/** Whether the file `name` in folder `dir` (relative, POSIX) is one detection reads. */
export function isWantedFile(name: string, dir: string): boolean {
  if (ROLES.has(name)) return true;
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
  if (parent === 'requirements' && /\.(?:txt|in)$/.test(name)) keep -= 1;
  else if (parent === 'wrapper' && parts[keep - 2] === 'gradle') keep -= 2;
  else if (parent === 'wrapper' && parts[keep - 2] === '.mvn') keep -= 2;
  else if (parent === 'gradle' && name.endsWith('.versions.toml')) keep -= 1;
  const dir = parts.slice(0, keep).join('/') || '.';
  const key = parts.slice(keep).join('/');
  return { dir, key };
}

/** `a/b` → 2, `.` → 0. */
export function depthOf(dir: string): number {
  return dir === '.' ? 0 : dir.split('/').length;
}

/** Whether folder `inner` is `outer` or below it. */
export function isWithin(inner: string, outer: string): boolean {
  return outer === '.' || inner === outer || inner.startsWith(`${outer}/`);
}
