import semver from 'semver';
import { parse as parseYaml } from 'yaml';
import type { VerificationCheck, VersionPin } from '../../../../core/environment.ts';
import { ciVersionPin, findCommands, refOf, type Evidence } from '../../detect/evidence.ts';
import { globMembers, type MemberTest } from '../../detect/members.ts';
import {
  filesOf,
  isPlainName,
  maybe,
  versionFile,
  type Analyzer,
  type EvidenceRef,
  type FolderFiles,
} from '../../detect/project.ts';
import { nodeRangesMeet } from '../../detect/ranges.ts';
import { firstLine, parseToolVersions, pin } from '../../detect/versions.ts';

/** The runtime's names in `.tool-versions` and `mise.toml`. */
export const TOOL_NAMES = { nodejs: 'node', node: 'node' } as const;

const MAX_CHECKED = 5;

interface PackageJson {
  name?: unknown;
  private?: unknown;
  bin?: unknown;
  exports?: unknown;
  main?: unknown;
  module?: unknown;
  dependencies?: unknown;
  devDependencies?: unknown;
  optionalDependencies?: unknown;
  engines?: { node?: unknown };
  volta?: { node?: unknown };
  packageManager?: unknown;
  workspaces?: unknown;
}

type Manager = 'npm' | 'pnpm' | 'yarn' | 'yarn-berry' | 'bun';

function entries(value: unknown): [string, string][] {
  if (!value || typeof value !== 'object') return [];
  return Object.entries(value as Record<string, unknown>).filter(
    (e): e is [string, string] => typeof e[1] === 'string',
  );
}

/** Workspace-internal specs (`workspace:*`, `link:`) are not dependencies to install. */
const internal = (spec: string) => /^(?:workspace:|link:|portal:)/.test(spec);

/** `packageManager`, then the lockfile, then what CI installs with, then npm. */
function managerOf(
  pkg: PackageJson,
  folder: FolderFiles,
  yarnLock: string | undefined,
  evidence: Evidence,
): { manager: Manager; rule: string; refs: EvidenceRef[] } {
  const declared = typeof pkg.packageManager === 'string' ? pkg.packageManager : '';
  const [name, version = ''] = declared.split('@');
  const field = {
    file: folder.files.get('package.json')!,
    line: 0,
    text: `"packageManager": "${declared}"`,
  };
  if (name === 'pnpm' || name === 'npm' || name === 'bun')
    return { manager: name, rule: 'the packageManager field', refs: [field] };
  if (name === 'yarn')
    return {
      manager: Number(version.split('.')[0]) >= 2 ? 'yarn-berry' : 'yarn',
      rule: 'the packageManager field',
      refs: [field],
    };
  const has = (key: string) => folder.files.has(key);
  const lock = (key: string) => [{ file: folder.files.get(key)!, line: 0, text: key }];
  if (has('pnpm-lock.yaml'))
    return { manager: 'pnpm', rule: 'its lockfile', refs: lock('pnpm-lock.yaml') };
  if (has('bun.lock') || has('bun.lockb'))
    return {
      manager: 'bun',
      rule: 'its lockfile',
      refs: lock(has('bun.lock') ? 'bun.lock' : 'bun.lockb'),
    };
  if (has('yarn.lock'))
    return {
      manager: has('.yarnrc.yml') || yarnLock?.includes('__metadata:') ? 'yarn-berry' : 'yarn',
      rule: 'its lockfile',
      refs: lock('yarn.lock'),
    };
  if (has('package-lock.json'))
    return { manager: 'npm', rule: 'its lockfile', refs: lock('package-lock.json') };
  const ci = findCommands(evidence, { environment: 'node', kind: 'install' })[0];
  if (ci && ci.command.tool !== 'npm')
    return {
      manager: ci.command.tool as Manager,
      rule: `no lockfile; the project's ${ci.source === 'docs' ? 'docs install' : 'CI installs'} with it`,
      refs: [refOf(ci)],
    };
  return { manager: 'npm', rule: 'no lockfile: npm', refs: ci ? [refOf(ci)] : [] };
}

/**
 * The pnpm major to install a lockfile with, from its `lockfileVersion`:
 * `5.3` is pnpm 6, `5.4` pnpm 7, `6.x` pnpm 8. `9.0` is written by pnpm 9
 * and every later major: pnpm 10 reads it together with the settings pnpm 10
 * projects keep in pnpm-workspace.yaml (a file pnpm 9 refuses without a
 * `packages` list), and has no release-age policy on by default, which later
 * majors check against the registry's manifests. Undefined when the version
 * is missing or unknown.
 */
export function pnpmMajorOfLockfile(text: string): string | undefined {
  const match = /^lockfileVersion:\s*['"]?(\d+)(?:\.(\d+))?/m.exec(text.slice(0, 2000));
  if (!match) return undefined;
  const [major, minor] = [Number(match[1]), Number(match[2] ?? 0)];
  if (major === 9) return '10';
  if (major === 6) return '8';
  if (major === 5 && minor >= 4) return '7';
  if (major === 5 && minor === 3) return '6';
  return undefined;
}

/**
 * The Yarn major that wrote a Berry lockfile, from its `__metadata` version:
 * 4 is Yarn 2, 5 to 7 Yarn 3, 8 and later Yarn 4. Undefined for a Yarn 1
 * lockfile or an unknown version.
 */
export function yarnMajorOfLockfile(text: string): string | undefined {
  const match = /^__metadata:\s*\n\s+version:\s*(\d+)/m.exec(text.slice(0, 4000));
  if (!match) return undefined;
  const version = Number(match[1]);
  if (version >= 8) return '4';
  if (version >= 5) return '3';
  if (version === 4) return '2';
  return undefined;
}

/**
 * The package manager to prepare when nothing pins it: without a
 * `packageManager` field corepack runs its own default (its newest pnpm,
 * Yarn 1), not the major the lockfile was written by. Yarn Berry's
 * `yarnPath` in `.yarnrc.yml` pins it already.
 */
async function unpinnedRelease(
  manager: Manager,
  pkg: PackageJson,
  folder: FolderFiles,
  read: (rel: string) => Promise<string | undefined>,
  yarnLockText: string | undefined,
): Promise<{ name: 'pnpm' | 'yarn'; major: string; lockfile: string } | undefined> {
  if (typeof pkg.packageManager === 'string') return undefined;
  if (manager === 'pnpm') {
    const lock = folder.files.get('pnpm-lock.yaml');
    const major = lock ? pnpmMajorOfLockfile((await read(lock)) ?? '') : undefined;
    return major ? { name: 'pnpm', major, lockfile: 'pnpm-lock.yaml' } : undefined;
  }
  if (manager !== 'yarn-berry' || !yarnLockText) return undefined;
  const rc = folder.files.get('.yarnrc.yml');
  if (rc && /^yarnPath:/m.test((await read(rc)) ?? '')) return undefined;
  const major = yarnMajorOfLockfile(yarnLockText);
  return major ? { name: 'yarn', major, lockfile: 'yarn.lock' } : undefined;
}

function setupFor(manager: Manager, folder: FolderFiles, prepare: string | undefined): string[] {
  const has = (key: string) => folder.files.has(key);
  const prepared = prepare ? [`corepack prepare ${prepare} --activate`] : [];
  switch (manager) {
    case 'pnpm':
      return [
        'corepack enable pnpm',
        ...prepared,
        has('pnpm-lock.yaml')
          ? 'pnpm install --frozen-lockfile'
          : 'pnpm install --no-frozen-lockfile',
      ];
    case 'yarn':
      return [
        'corepack enable yarn',
        has('yarn.lock') ? 'yarn install --frozen-lockfile' : 'yarn install',
      ];
    case 'yarn-berry':
      return [
        'corepack enable yarn',
        ...prepared,
        has('yarn.lock') ? 'yarn install --immutable' : 'yarn install --no-immutable',
      ];
    default:
      // bun is not one of the environments: npm reads the same package.json
      return has('package-lock.json') || has('npm-shrinkwrap.json')
        ? ['npm ci --no-audit --no-fund']
        : ['npm install --no-audit --no-fund --no-package-lock'];
  }
}

/** Node's major version as `true`/`false`, or a plain `OK` when nothing is pinned. */
export function nodeVersionCheck(minimum: string | undefined): VerificationCheck {
  return minimum
    ? {
        command: `node -e "process.stdout.write(String(Number(process.versions.node.split('.')[0]) >= ${minimum}))"`,
        expected_output: 'true',
      }
    : { command: `node -e "process.stdout.write('OK')"`, expected_output: 'OK' };
}

function installedCheck(names: string[]): VerificationCheck {
  const list = names.map((n) => `'${n}'`).join(', ');
  return {
    command: `node -e "const fs = require('fs'); process.stdout.write(String([${list}].every((n) => fs.existsSync('node_modules/' + n + '/package.json'))))"`,
    expected_output: 'true',
  };
}

async function versionsOf(
  pkg: PackageJson,
  folder: FolderFiles,
  read: (rel: string) => Promise<string | undefined>,
  root: FolderFiles | undefined,
): Promise<VersionPin[]> {
  const found: (VersionPin | undefined)[] = [];
  if (typeof pkg.engines?.node === 'string')
    found.push(pin('node', pkg.engines.node, 'package.json engines.node'));
  if (typeof pkg.volta?.node === 'string')
    found.push(pin('node', pkg.volta.node, 'package.json volta.node'));
  for (const key of ['.nvmrc', '.node-version']) {
    const rel = versionFile(folder, { root }, key);
    if (rel) found.push(pin('node', firstLine((await read(rel)) ?? ''), rel));
  }
  const tools = versionFile(folder, { root }, '.tool-versions');
  if (tools)
    found.push(
      ...parseToolVersions((await read(tools)) ?? '', tools, TOOL_NAMES).filter(
        (p) => p.language === 'node',
      ),
    );
  return found.filter((p): p is VersionPin => p !== undefined);
}

/**
 * CI's pin with the newest major its matrix tests as `maximum` (`[10, 12,
 * 14]` → 14): the newest Node the maintainers vouch for. A moving version
 * (`lts/*`, `latest`) in the matrix sets none.
 */
function withNewestTested(ciPin: VersionPin, evidence: Evidence): VersionPin {
  const tested = evidence.runtimes
    .filter((r) => r.language === 'node' && !r.secondary && r.source !== 'docs')
    .flatMap((r) => r.versions);
  const majors = tested.map((v) => semver.coerce(v)?.major);
  if (majors.length === 0 || majors.some((m) => m === undefined)) return ciPin;
  return { ...ciPin, maximum: String(Math.max(...(majors as number[]))) };
}

/** Pins (.nvmrc, volta, CI) that allow no version `engines.node` accepts: one note each. */
function enginesConflicts(pkg: PackageJson, versions: VersionPin[]): string[] {
  const engines = typeof pkg.engines?.node === 'string' ? pkg.engines.node : undefined;
  if (!engines) return [];
  return versions
    .filter((p) => !p.source.startsWith('package.json engines') && !nodeRangesMeet(engines, p.spec))
    .map((p) => `${p.source} asks for node ${p.spec}, outside engines.node "${engines}"`);
}

/** `packages` of a pnpm-workspace.yaml; a broken file is a note, never a crash. */
function pnpmWorkspacePackages(text: string, notes: string[]): unknown {
  try {
    const doc: unknown = parseYaml(text);
    return doc && typeof doc === 'object' ? (doc as { packages?: unknown }).packages : undefined;
  } catch (error) {
    notes.push(
      `pnpm-workspace.yaml is not valid YAML (${(error as Error).message.split('\n')[0]})`,
    );
    return undefined;
  }
}

/**
 * The workspace members: `workspaces` (array or `{packages}`), else
 * pnpm-workspace.yaml `packages` (with `!` exclusions). An empty list is no
 * workspace.
 */
async function membersOf(
  pkg: PackageJson,
  folder: FolderFiles,
  read: (rel: string) => Promise<string | undefined>,
  notes: string[],
): Promise<MemberTest | undefined> {
  const declared = Array.isArray(pkg.workspaces)
    ? pkg.workspaces
    : (pkg.workspaces as { packages?: unknown } | undefined)?.packages;
  const fromPackage = globMembers(declared);
  if (fromPackage) return fromPackage;
  const workspaceFile = folder.files.get('pnpm-workspace.yaml');
  if (!workspaceFile) return undefined;
  return globMembers(pnpmWorkspacePackages((await read(workspaceFile)) ?? '', notes));
}

/** A package others install: named, not private, and with something to import or run. */
function publishedRef(pkg: PackageJson, rel: string, text: string): EvidenceRef | undefined {
  if (typeof pkg.name !== 'string' || pkg.private === true) return undefined;
  const field = ['bin', 'exports', 'main', 'module'].find(
    (k) => pkg[k as keyof PackageJson] !== undefined,
  );
  if (!field) return undefined;
  const line = text.split(/\r?\n/).findIndex((l) => l.includes(`"${field}"`)) + 1;
  return { file: rel, line, text: `"name": "${pkg.name}" with "${field}"` };
}

export const analyzeNode: Analyzer = async (folder, context) => {
  const rel = folder.files.get('package.json');
  if (!rel) return undefined;
  const notes: string[] = [];
  let pkg: PackageJson = {};
  const text = (await context.read(rel)) ?? '{}';
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object') pkg = parsed as PackageJson;
  } catch (error) {
    notes.push(`package.json is not valid JSON (${(error as Error).message})`);
  }
  const yarnLock = folder.files.get('yarn.lock');
  const yarnLockText = yarnLock ? await context.read(yarnLock) : undefined;
  const choice = managerOf(pkg, folder, yarnLockText, context.evidence);
  const { manager } = choice;
  const release = await unpinnedRelease(manager, pkg, folder, context.read, yarnLockText);
  const runtime = entries(pkg.dependencies).filter(([, spec]) => !internal(spec));
  const dev = entries(pkg.devDependencies).filter(([, spec]) => !internal(spec));
  const optional = entries(pkg.optionalDependencies).filter(([, spec]) => !internal(spec));
  const members = await membersOf(pkg, folder, context.read, notes);
  const versions = await versionsOf(pkg, folder, context.read, context.root);
  const ci = ciVersionPin(context.evidence, 'node');
  if (ci) versions.push(withNewestTested(ci.pin, context.evidence));
  notes.push(...enginesConflicts(pkg, versions));
  const locks = [
    'package-lock.json',
    'npm-shrinkwrap.json',
    'yarn.lock',
    'pnpm-lock.yaml',
    'bun.lock',
    'bun.lockb',
  ];
  notes.push(`package manager ${manager} (${choice.rule})`);
  if (release)
    notes.push(
      `${release.name} ${release.major}: no packageManager pin; the major that wrote ${release.lockfile}`,
    );
  if (manager === 'bun')
    notes.push('bun is not an available environment: installing with npm instead');
  const checked = [...runtime, ...dev]
    .map(([name]) => name)
    .filter(isPlainName)
    .slice(0, MAX_CHECKED);
  // Yarn Berry's Plug'n'Play installs no node_modules folder to look into.
  const checks = checked.length > 0 && manager !== 'yarn-berry' ? [installedCheck(checked)] : [];
  return {
    environment: 'node',
    dir: folder.dir,
    manifests: filesOf(folder, 'node'),
    dependencies: [...runtime, ...dev, ...optional].map(([name, spec]) => `${name}@${spec}`),
    packageManager: manager === 'yarn-berry' ? 'yarn' : manager === 'bun' ? 'npm' : manager,
    versions,
    hasBuildConfig: locks.some((key) => folder.files.has(key)),
    workspace: members !== undefined,
    ...(members ? { isMember: members } : {}),
    ...maybe('published', publishedRef(pkg, rel, text)),
    ...maybe('versionRefs', ci ? [ci.ref] : undefined),
    setup: setupFor(manager, folder, release && `${release.name}@${release.major}`),
    versionCheck: nodeVersionCheck,
    checks,
    notes,
    decisions: [
      {
        topic: 'package_manager',
        choice: manager,
        rule: choice.rule,
        evidence: choice.refs,
      },
    ],
  };
};
