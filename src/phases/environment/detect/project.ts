import type {
  DetectionDecision,
  EnvironmentName,
  EvidenceRef,
  VerificationCheck,
  VersionPin,
} from '../../../core/environment.ts';
import type { Evidence } from './evidence.ts';
import type { FileEnvironment } from './files.ts';
import type { MemberTest } from './members.ts';

/** The detected files of one folder: key (e.g. `requirements/dev.txt`) → repository path. */
export interface FolderFiles {
  /** `.` for the repository root. */
  dir: string;
  files: ReadonlyMap<string, string>;
  /** The environment a key's file belongs to (`any` for files of every language). */
  environmentOf(key: string): FileEnvironment;
}

export interface AnalyzeContext {
  /** File content (size-capped), or undefined when unreadable. Cached. */
  read(rel: string): Promise<string | undefined>;
  /** The root folder's files, for version files that apply to the whole repository. */
  root: FolderFiles | undefined;
  /** What the project's CI, task runners and docs run (evidence.ts). */
  evidence: Evidence;
}

export type { EvidenceRef } from '../../../core/environment.ts';

/**
 * One project of one environment in one folder. Commands are written to run
 * in `dir`; the proposal step prefixes `cd dir &&` for folders below the root.
 */
export interface Project {
  environment: EnvironmentName;
  dir: string;
  manifests: string[];
  dependencies: string[];
  packageManager: string;
  versions: VersionPin[];
  /** Where the version pins were read, with line numbers when known. */
  versionRefs?: EvidenceRef[];
  /** A lockfile, wrapper or build configuration is present: a sign the project is built as it stands. */
  hasBuildConfig: boolean;
  /** A workspace/multi-module root: projects of the same environment below it may be its members. */
  workspace: boolean;
  /** Which folders below (relative to `dir`) the build includes; absent: all of them. */
  isMember?: MemberTest;
  /** A published artefact: pyproject with a build backend, a public package.json, go.mod, a root build. */
  published?: EvidenceRef;
  /** Decisions about this project (package manager, install, build tool, version, members) and their evidence. */
  decisions?: DetectionDecision[];
  setup: string[];
  /** The runtime version check for a version range (or a plain "runs" check without one). */
  versionCheck: (minimum: string | undefined, maximum?: string) => VerificationCheck;
  /** Further checks: the dependencies are installed, the build tool runs. */
  checks: VerificationCheck[];
  /** Why the package manager and commands were chosen. */
  notes: string[];
  /** For Python projects next to a conda file: what pip installs inside the conda environment. */
  condaPipArgs?: string;
  /** For conda projects: the prefix that runs a command inside the environment. */
  runPrefix?: string;
  /**
   * Its only manifest is a `binder/` file no CI job or docs create an
   * environment from: the runtime of a notebook demo, not the development
   * environment, so it replaces no project whose CI sets it up.
   */
  binderOnly?: boolean;
}

export type Analyzer = (
  folder: FolderFiles,
  context: AnalyzeContext,
) => Promise<Project | undefined>;

/** The repository path of `key` in `folder`, if detected. */
export function fileIn(folder: FolderFiles, key: string): string | undefined {
  return folder.files.get(key);
}

/** Repository paths of the folder's files that belong to `environment`. */
export function filesOf(folder: FolderFiles, environment: EnvironmentName): string[] {
  return [...folder.files]
    .filter(([key]) => folder.environmentOf(key) === environment)
    .map(([, rel]) => rel);
}

/** Version files of the folder, then of the repository root. */
export function versionFile(
  folder: FolderFiles,
  context: Pick<AnalyzeContext, 'root'>,
  key: string,
): string | undefined {
  return folder.files.get(key) ?? context.root?.files.get(key);
}

/** Quotes a word for `sh` when it holds anything but safe characters. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Names safe to put inside a quoted literal of a generated check. */
export function isPlainName(name: string): boolean {
  return /^(?:@[A-Za-z0-9][\w.-]*\/)?[A-Za-z0-9][\w.-]*$/.test(name);
}

export function unique<T>(items: Iterable<T>): T[] {
  return [...new Set(items)];
}

/** `{ key: value }` when the value is defined, else `{}` (for optional properties under exactOptionalPropertyTypes). */
export const maybe = <K extends string, V>(key: K, value: V | undefined) =>
  (value === undefined ? {} : { [key]: value }) as Partial<Record<K, V>>;
