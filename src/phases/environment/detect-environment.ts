import { stat } from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from '../../errors/errors.ts';
import { readInRepo } from '../../tools/repo-read.ts';
import { repoRoot } from '../../tools/sandbox.ts';
import type { RepoRoot } from '../../core/tool.ts';
import type { EnvironmentDetection } from '../../core/environment.ts';
import { decide, defaultProposal } from './detect/decide.ts';
import { gatherEvidence } from './detect/evidence.ts';
import { depthOf, isProjectFolder, type FileTable } from './detect/files.ts';
import type { TrackedFiles } from '../../core/tracked-files.ts';
import { listRepository, type ListingMode } from './detect/list.ts';
import type { AnalyzeContext, FolderFiles, Project } from './detect/project.ts';
import { DETECTION_KINDS, kindOf, type DetectionKinds } from './registry.ts';

export interface DetectOptions {
  /** `auto` (git index in a checkout, else walk) or `walk`. */
  listing?: ListingMode;
  /** Reads the git index (src/shell/git-tracked.ts); without it the folder is walked. */
  tracked?: TrackedFiles | undefined;
  /** Deepest folder level searched (root = 0). */
  maxDepth?: number;
  /** Bytes of one file read for parsing. */
  maxReadBytes?: number;
  /** Bytes of one file shown in `detected_files`. */
  maxShownBytes?: number;
  /** Bytes of all of `detected_files` together. */
  maxTotalShownBytes?: number;
  /** Files listed in `detected_files`. */
  maxShownFiles?: number;
  /** The environments to look for (default: the registry's). */
  kinds?: DetectionKinds;
}

const LIMITS = {
  maxDepth: 12,
  maxReadBytes: 512 * 1024,
  maxShownBytes: 16 * 1024,
  maxTotalShownBytes: 160 * 1024,
  maxShownFiles: 120,
};

interface FileText {
  text: string;
  size: number;
}

/**
 * A cached, size-capped reader through the path sandbox: a committed
 * symbolic link out of the checkout is never followed, so its target's text
 * reaches no output, command or prompt.
 */
function createReader(root: RepoRoot, cap: number): (rel: string) => Promise<FileText | undefined> {
  const cache = new Map<string, Promise<FileText | undefined>>();
  return (rel) => {
    let text = cache.get(rel);
    if (!text) cache.set(rel, (text = readInRepo(root, rel, cap)));
    return text;
  };
}

function groupByFolder(files: string[], table: FileTable): FolderFiles[] {
  const folders = new Map<string, Map<string, string>>();
  for (const rel of files) {
    const { dir, key } = table.ownerOf(rel);
    if (!isProjectFolder(dir)) continue; // .github/, .devcontainer/, ci/: evidence, not projects
    let folder = folders.get(dir);
    if (!folder) folders.set(dir, (folder = new Map()));
    folder.set(key, rel);
  }
  const environmentOf = (key: string) => table.describeFile(key).environment;
  return [...folders].map(([dir, map]) => ({ dir, files: map, environmentOf }));
}

async function showFiles(
  files: string[],
  read: (rel: string) => Promise<FileText | undefined>,
  limits: typeof LIMITS,
  table: FileTable,
): Promise<Record<string, string>> {
  const shown: Record<string, string> = {};
  const ordered = [...files].sort((a, b) => depthOf(a) - depthOf(b) || a.localeCompare(b));
  let budget = limits.maxTotalShownBytes;
  for (const rel of ordered.slice(0, limits.maxShownFiles)) {
    const { role } = table.describeFile(table.ownerOf(rel).key);
    const file = await read(rel);
    if (!file) continue;
    if (role === 'lockfile' || role === 'wrapper') {
      shown[rel] = `(${role}, ${file.size} bytes; not shown)`;
      continue;
    }
    if (role === 'docs') {
      shown[rel] = `(docs, ${file.size} bytes; read for its install, build and test commands)`;
      continue;
    }
    const cut = Math.min(limits.maxShownBytes, budget);
    if (cut <= 0) {
      shown[rel] = `(${file.size} bytes; not shown: size budget reached)`;
      continue;
    }
    const text =
      file.text.length > cut
        ? `${file.text.slice(0, cut)}\n…(cut at ${cut} characters)`
        : file.text;
    budget -= Math.min(file.text.length, cut);
    shown[rel] = text;
  }
  if (ordered.length > limits.maxShownFiles) {
    shown['…'] = `(${ordered.length - limits.maxShownFiles} more files not listed)`;
  }
  return shown;
}

/**
 * Detects a repository's execution environment:
 * finds the environment files, reads them size-capped, extracts dependencies
 * and version pins, chooses the environment by the documented precedence
 * (docs/environment.md) and proposes setup and verification commands.
 */
export async function detectEnvironment(
  dir: string,
  options: DetectOptions = {},
): Promise<EnvironmentDetection> {
  const started = Date.now();
  const limits = { ...LIMITS, ...options };
  const kinds = options.kinds ?? DETECTION_KINDS;
  const root = path.resolve(dir);
  const info = await stat(root).catch(() => undefined);
  if (!info?.isDirectory()) {
    throw new UsageError(`not a directory: ${root}`, {
      where: 'detect',
      hint: 'pass the folder of a repository checkout.',
    });
  }
  const listing = await listRepository(root, kinds.files.isWantedFile, {
    mode: options.listing ?? 'auto',
    tracked: options.tracked,
    maxDepth: limits.maxDepth,
  });
  const readFile = createReader(await repoRoot(root), limits.maxReadBytes);
  const read = async (rel: string) => (await readFile(rel))?.text;
  const context: AnalyzeContext = {
    read,
    root: undefined,
    evidence: await gatherEvidence(listing.files, read, kinds.vocabulary),
  };
  const folders = groupByFolder(listing.files, kinds.files);
  context.root = folders.find((f) => f.dir === '.');
  const found = await Promise.all(
    folders.flatMap((folder) => kinds.kinds.map((kind) => kind.analyze(folder, context))),
  );
  const projects = found.filter((p): p is Project => p !== undefined);
  const decision = decide(projects, context.evidence, kinds.decision);
  decision.reasons.push(...context.evidence.problems);
  const proposal =
    decision.proposals[decision.environment] ??
    defaultProposal(
      kinds.kinds.find((k) => k.name === decision.environment) ?? kindOf(decision.environment),
    );
  if (listing.truncated)
    decision.reasons.push(
      'the folder walk stopped early (too many entries); some files may be missing',
    );
  return {
    detected_files: await showFiles(listing.files, readFile, limits, kinds.files),
    environment_type: decision.environment,
    dependencies: proposal.dependencies,
    setup_commands: proposal.setup_commands,
    verification: proposal.verification,
    versions: proposal.versions,
    package_manager: proposal.package_manager,
    project_dirs: proposal.project_dirs,
    candidates: decision.candidates,
    proposals: decision.proposals,
    reasons: decision.reasons,
    decisions: decision.decisions,
    ...(decision.testCommand ? { test_command: decision.testCommand } : {}),
    evidence_files: context.evidence.files,
    stats: {
      source: listing.source,
      entries: listing.entries,
      truncated: listing.truncated,
      duration_ms: Date.now() - started,
    },
  };
}
