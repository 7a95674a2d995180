import { stat } from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from '../../../errors/errors.ts';
import { readInRepo } from '../../../tools/repo-read.ts';
import { repoRoot } from '../../../tools/sandbox.ts';
import type { RepoRoot } from '../../../core/tool.ts';
import type { EnvironmentDetection } from '../../../core/environment.ts';
import { analyzeConda } from './conda.ts';
import { decide, defaultProposal } from './decide.ts';
import { gatherEvidence } from './evidence.ts';
import { depthOf, describeFile, isProjectFolder, isWantedFile, ownerOf } from './files.ts';
import { analyzeGo } from './go.ts';
import { analyzeJava } from './java.ts';
import { listRepository, type ListingMode } from './list.ts';
import { analyzeNode } from './node.ts';
import type { AnalyzeContext, Analyzer, FolderFiles, Project } from './project.ts';
import { analyzePython } from './python.ts';

export interface DetectOptions {
  /** `auto` (git index in a checkout, else walk) or `walk`. */
  listing?: ListingMode;
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
}

const LIMITS = {
  maxDepth: 12,
  maxReadBytes: 512 * 1024,
  maxShownBytes: 16 * 1024,
  maxTotalShownBytes: 160 * 1024,
  maxShownFiles: 120,
};
const ANALYZERS: Analyzer[] = [analyzePython, analyzeConda, analyzeNode, analyzeJava, analyzeGo];

interface FileText {
  text: string;
  size: number;
}

/**
 * A cached, size-capped reader through the path sandbox (issue 19 §5): a
 * committed symbolic link out of the checkout is never followed, so its
 * target's text reaches no output, command or prompt.
 */
function createReader(root: RepoRoot, cap: number): (rel: string) => Promise<FileText | undefined> {
  const cache = new Map<string, Promise<FileText | undefined>>();
  return (rel) => {
    let text = cache.get(rel);
    if (!text) cache.set(rel, (text = readInRepo(root, rel, cap)));
    return text;
  };
}

function groupByFolder(files: string[]): FolderFiles[] {
  const folders = new Map<string, Map<string, string>>();
  for (const rel of files) {
    const { dir, key } = ownerOf(rel);
    if (!isProjectFolder(dir)) continue; // .github/, .devcontainer/, ci/: evidence, not projects
    let folder = folders.get(dir);
    if (!folder) folders.set(dir, (folder = new Map()));
    folder.set(key, rel);
  }
  return [...folders].map(([dir, map]) => ({ dir, files: map }));
}

async function showFiles(
  files: string[],
  read: (rel: string) => Promise<FileText | undefined>,
  limits: typeof LIMITS,
): Promise<Record<string, string>> {
  const shown: Record<string, string> = {};
  const ordered = [...files].sort((a, b) => depthOf(a) - depthOf(b) || a.localeCompare(b));
  let budget = limits.maxTotalShownBytes;
  for (const rel of ordered.slice(0, limits.maxShownFiles)) {
    const { role } = describeFile(ownerOf(rel).key);
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
 * Detects a repository's execution environment (SPEC C2, seed 000 §3, §4.2):
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
  const root = path.resolve(dir);
  const info = await stat(root).catch(() => undefined);
  if (!info?.isDirectory()) {
    throw new UsageError(`not a directory: ${root}`, {
      where: 'detect',
      hint: 'pass the folder of a repository checkout.',
    });
  }
  const listing = await listRepository(root, isWantedFile, {
    mode: options.listing ?? 'auto',
    maxDepth: limits.maxDepth,
  });
  const readFile = createReader(await repoRoot(root), limits.maxReadBytes);
  const read = async (rel: string) => (await readFile(rel))?.text;
  const context: AnalyzeContext = {
    read,
    root: undefined,
    evidence: await gatherEvidence(listing.files, read),
  };
  const folders = groupByFolder(listing.files);
  context.root = folders.find((f) => f.dir === '.');
  const found = await Promise.all(
    folders.flatMap((folder) => ANALYZERS.map((analyze) => analyze(folder, context))),
  );
  const projects = found.filter((p): p is Project => p !== undefined);
  const decision = decide(projects, context.evidence);
  decision.reasons.push(...context.evidence.problems);
  const proposal =
    decision.proposals[decision.environment] ?? defaultProposal(decision.environment);
  if (listing.truncated)
    decision.reasons.push(
      'the folder walk stopped early (too many entries); some files may be missing',
    );
  return {
    detected_files: await showFiles(listing.files, readFile, limits),
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
