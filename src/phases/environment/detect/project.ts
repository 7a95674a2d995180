import type { EnvironmentName, VerificationCheck, VersionPin } from '../../../core/environment.ts';
import { describeFile } from './files.ts';

/** The detected files of one folder: key (e.g. `requirements/dev.txt`) → repository path. */
export interface FolderFiles {
  /** `.` for the repository root. */
  dir: string;
  files: ReadonlyMap<string, string>;
}

export interface AnalyzeContext {
  /** File content (size-capped), or undefined when unreadable. Cached. */
  read(rel: string): Promise<string | undefined>;
  /** The root folder's files, for version files that apply to the whole repository. */
  root: FolderFiles | undefined;
}

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
  /** A lockfile, wrapper or build configuration is present (seed 000 §4.2.2 rule 3). */
  hasBuildConfig: boolean;
  /** A workspace/multi-module root: projects of the same environment below it are its members. */
  workspace: boolean;
  setup: string[];
  /** The runtime version check for a minimum version (or a plain "runs" check without one). */
  versionCheck: (minimum: string | undefined) => VerificationCheck;
  /** Further checks: the dependencies are installed, the build tool runs. */
  checks: VerificationCheck[];
  /** Why the package manager and commands were chosen. */
  notes: string[];
  /** For pip projects: the `pip install` arguments, reused inside a conda environment. */
  pipArgs?: string;
  /** For conda projects: the prefix that runs a command inside the environment. */
  runPrefix?: string;
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
    .filter(([key]) => describeFile(key).environment === environment)
    .map(([, rel]) => rel);
}

/** Version files of the folder, then of the repository root. */
export function versionFile(
  folder: FolderFiles,
  context: AnalyzeContext,
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
