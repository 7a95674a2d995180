import type {
  EnvironmentCandidate,
  EnvironmentName,
  EvidenceRef,
} from '../../../core/environment.ts';
import { findCommands, refOf, type Evidence } from './evidence.ts';
import { depthOf, isWithin } from './files.ts';
import { relativeDir } from './members.ts';
import { unique, type Project } from './project.ts';

/** The projects of one environment, and what speaks for it. */
export interface Group {
  environment: EnvironmentName;
  /** Projects not below another project of the same environment, shallowest first. */
  top: Project[];
  /** Nested projects the build includes (workspace members, modules). */
  members: Project[];
  /** Nested projects the build does not include: found, not set up. */
  nested: Project[];
  depth: number;
  dependencies: number;
  buildConfig: boolean;
  /** The first thing the project's CI does for this environment (set-up step, install, build or test). */
  ci: { order: number; ref: EvidenceRef } | undefined;
  /** A test command of this environment in a main CI job: the project's own test workflow. */
  ciTest: EvidenceRef | undefined;
  /** A published artefact at the repository root. */
  published: EvidenceRef | undefined;
  /** An install/build/test command of this environment in the README's install or development section. */
  docs: EvidenceRef | undefined;
}

/** A member of a workspace root or of one of its members (Maven modules nest), as the build says. */
function isMemberOf(project: Project, builds: Project[]): boolean {
  return builds.some(
    (b) =>
      b.workspace &&
      b.dir !== project.dir &&
      isWithin(project.dir, b.dir) &&
      (b.isMember?.(relativeDir(project.dir, b.dir)) ?? true),
  );
}

function ciOf(environment: EnvironmentName, evidence: Evidence): Group['ci'] {
  const runtime = evidence.runtimes.find(
    (r) => r.source === 'ci' && !r.secondary && r.environment === environment,
  );
  const command = findCommands(evidence, {
    environment,
    source: 'ci',
    kind: ['install', 'test', 'build'],
  })[0];
  const first = [runtime, command]
    .filter((e) => e !== undefined)
    .sort((a, b) => a.order - b.order)[0];
  return first ? { order: first.order, ref: refOf(first) } : undefined;
}

function docsOf(environment: EnvironmentName, evidence: Evidence): EvidenceRef | undefined {
  const found = findCommands(evidence, {
    environment,
    source: 'docs',
    kind: ['install', 'test', 'build', 'tool'],
  })[0];
  return found ? refOf(found) : undefined;
}

function ciTestOf(
  environment: EnvironmentName,
  evidence: Evidence,
  testEvidence: EnvironmentName | undefined,
): EvidenceRef | undefined {
  const found = findCommands(evidence, {
    environment: testEvidence ? [environment, testEvidence] : environment,
    source: 'ci',
    kind: 'test',
  })[0];
  return found ? refOf(found) : undefined;
}

export function groupOf(
  environment: EnvironmentName,
  projects: Project[],
  evidence: Evidence,
  /** The environment whose tools' test commands count for this one (miniforge runs Python's). */
  testEvidence?: EnvironmentName,
): Group {
  const sorted = [...projects].sort(
    (a, b) => depthOf(a.dir) - depthOf(b.dir) || a.dir.localeCompare(b.dir),
  );
  const group: Group = {
    environment,
    top: [],
    members: [],
    nested: [],
    depth: 0,
    dependencies: 0,
    buildConfig: false,
    ci: ciOf(environment, evidence),
    ciTest: ciTestOf(environment, evidence, testEvidence),
    published: undefined,
    docs: docsOf(environment, evidence),
  };
  for (const project of sorted) {
    const parent = group.top.find((t) => isWithin(project.dir, t.dir));
    if (!parent) group.top.push(project);
    else if (isMemberOf(project, [parent, ...group.members])) group.members.push(project);
    else group.nested.push(project);
  }
  const counted = [...group.top, ...group.members];
  group.depth = depthOf(group.top[0]!.dir);
  group.dependencies = unique(counted.flatMap((p) => p.dependencies)).length;
  group.buildConfig = counted.some((p) => p.hasBuildConfig);
  group.published = group.top.find((p) => p.dir === '.')?.published;
  return group;
}

export function candidateOf(group: Group): EnvironmentCandidate {
  return {
    environment: group.environment,
    projects: group.top.map((p) => p.dir),
    dependency_count: group.dependencies,
    has_build_config: group.buildConfig,
    package_manager: group.top[0]!.packageManager,
  };
}

/** `file:line` of a reference (`file` alone for line 0). */
export const at = (ref: EvidenceRef) => (ref.line > 0 ? `${ref.file}:${ref.line}` : ref.file);

export interface Ranking {
  order: number;
  rule: string;
  evidence: EvidenceRef[];
}

const both = (a: EvidenceRef | undefined, b: EvidenceRef | undefined) =>
  [a, b].filter((r): r is EvidenceRef => r !== undefined);

/**
 * Compares two groups by the documented precedence (docs/environment.md):
 * what CI sets up, the published package, what CI tests, what CI sets up first, the
 * README's install section, root over sub-folders, dependencies, build
 * configuration, a fixed order. The rule that decided comes with its evidence.
 */
export function rank(a: Group, b: Group, order: readonly EnvironmentName[]): Ranking {
  if (Boolean(a.ci) !== Boolean(b.ci)) {
    const ci = (a.ci ?? b.ci)!;
    return {
      order: a.ci ? -1 : 1,
      rule: `the project's CI sets it up and runs it (${at(ci.ref)}: ${ci.ref.text})`,
      evidence: [ci.ref],
    };
  }
  if (Boolean(a.published) !== Boolean(b.published)) {
    const published = (a.published ?? b.published)!;
    return {
      order: a.published ? -1 : 1,
      rule: `it is the published package at the root (${at(published)}: ${published.text})`,
      evidence: [published],
    };
  }
  if (a.ci && b.ci && Boolean(a.ciTest) !== Boolean(b.ciTest)) {
    const test = (a.ciTest ?? b.ciTest)!;
    return {
      order: a.ciTest ? -1 : 1,
      rule: `the project's test workflow runs its tests (${at(test)}: ${test.text}); the other's CI only sets it up or builds with it`,
      evidence: [test],
    };
  }
  if (a.ci && b.ci && a.ci.order !== b.ci.order) {
    const first = a.ci.order < b.ci.order ? a.ci : b.ci;
    return {
      order: a.ci.order - b.ci.order,
      rule: `the project's CI sets it up first (${at(first.ref)}: ${first.ref.text})`,
      evidence: [first.ref],
    };
  }
  if (Boolean(a.docs) !== Boolean(b.docs)) {
    const docs = (a.docs ?? b.docs)!;
    return {
      order: a.docs ? -1 : 1,
      rule: `the README's install section uses it (${at(docs)}: ${docs.text})`,
      evidence: [docs],
    };
  }
  return rankByFiles(a, b, order);
}

function rankByFiles(a: Group, b: Group, order: readonly EnvironmentName[]): Ranking {
  const evidence = both(a.ci?.ref, b.ci?.ref);
  const aRoot = a.depth === 0;
  const bRoot = b.depth === 0;
  if (aRoot !== bRoot)
    return {
      order: Number(bRoot) - Number(aRoot),
      rule: 'its project is at the repository root (a root project wins over sub-folder projects)',
      evidence,
    };
  if (a.dependencies !== b.dependencies)
    return {
      order: b.dependencies - a.dependencies,
      rule: 'it declares the most dependencies',
      evidence,
    };
  if (a.buildConfig !== b.buildConfig)
    return {
      order: Number(b.buildConfig) - Number(a.buildConfig),
      rule: 'it has build configuration (a lockfile, wrapper or build file)',
      evidence,
    };
  return {
    order: order.indexOf(a.environment) - order.indexOf(b.environment),
    rule: `nothing else tells them apart; fixed order ${order.join(' > ')}`,
    evidence,
  };
}
