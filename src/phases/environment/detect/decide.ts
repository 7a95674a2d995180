import type {
  EnvironmentCandidate,
  EnvironmentName,
  EnvironmentProposal,
  VerificationCheck,
} from '../schema.ts';
import { depthOf, isWithin } from './files.ts';
import { relativeDir } from './members.ts';
import { shellWord, unique, type Project } from './project.ts';

/** Tie-break order when everything else is equal (python first: the seed's default). */
export const ENVIRONMENT_ORDER: readonly EnvironmentName[] = [
  'python',
  'node',
  'java',
  'go',
  'miniforge',
];
/** Top-level projects of one environment that get setup commands. */
const MAX_PROJECTS = 5;

interface Group {
  environment: EnvironmentName;
  /** Projects not below another project of the same environment, shallowest first. */
  top: Project[];
  /** Nested projects folded into a workspace root. */
  members: Project[];
  /** Nested projects that are not workspace members: found, not set up. */
  nested: Project[];
  depth: number;
  dependencies: number;
  buildConfig: boolean;
}

function groupOf(environment: EnvironmentName, projects: Project[]): Group {
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
  return group;
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

const inDir = (dir: string, command: string) =>
  dir === '.' ? command : `cd ${shellWord(dir)} && ${command}`;

function proposalOf(group: Group, all: Project[]): EnvironmentProposal {
  const top = group.top.slice(0, MAX_PROJECTS);
  const setup: string[] = [];
  const verification: VerificationCheck[] = [];
  for (const project of top) {
    setup.push(...project.setup.map((c) => inDir(project.dir, c)));
    const python = all.find(
      (p) => p.environment === 'python' && p.dir === project.dir && p.pipArgs,
    );
    if (project.runPrefix && python)
      setup.push(
        inDir(project.dir, `${project.runPrefix} python -m pip install ${python.pipArgs}`),
      );
    // a workspace root's own files may pin nothing while a member does (Gradle toolchains often live in app/)
    const members = group.members.filter((m) => isWithin(m.dir, project.dir));
    const minimum = [project, ...members]
      .flatMap((p) => p.versions)
      .find((v) => v.minimum)?.minimum;
    const checks = [project.versionCheck(minimum), ...project.checks];
    verification.push(...checks.map((v) => ({ ...v, command: inDir(project.dir, v.command) })));
  }
  return {
    setup_commands: unique(setup),
    verification: verification.filter(
      (v, i) => verification.findIndex((w) => w.command === v.command) === i,
    ),
    package_manager: top[0]!.packageManager,
    project_dirs: top.map((p) => p.dir),
    dependencies: unique([...group.top, ...group.members].flatMap((p) => p.dependencies)),
    versions: [...group.top, ...group.members].flatMap((p) => p.versions),
  };
}

/** Setup and verification for an environment no project asked for (a planner's choice). */
export function defaultProposal(environment: EnvironmentName): EnvironmentProposal {
  const checks: Record<EnvironmentName, VerificationCheck> = {
    python: { command: `python3 -c "print('OK')"`, expected_output: 'OK' },
    node: { command: `node -e "process.stdout.write('OK')"`, expected_output: 'OK' },
    java: { command: 'java -version > /dev/null 2>&1 && echo OK', expected_output: 'OK' },
    go: { command: 'go version > /dev/null && echo OK', expected_output: 'OK' },
    miniforge: { command: 'conda --version > /dev/null && echo OK', expected_output: 'OK' },
  };
  return {
    setup_commands: [],
    verification: [checks[environment]],
    package_manager: '',
    project_dirs: [],
    dependencies: [],
    versions: [],
  };
}

function candidateOf(group: Group): EnvironmentCandidate {
  return {
    environment: group.environment,
    projects: group.top.map((p) => p.dir),
    dependency_count: group.dependencies,
    has_build_config: group.buildConfig,
    package_manager: group.top[0]!.packageManager,
  };
}

const where = (dirs: string[]) => dirs.map((d) => (d === '.' ? 'the root' : `${d}/`)).join(', ');
const fileNames = (group: Group) =>
  unique(group.top.flatMap((p) => p.manifests.map((m) => m.split('/').pop()!))).join(', ');

/** Compares two groups by the documented precedence; the reason names the rule that decided. */
function rank(a: Group, b: Group): { order: number; rule: string } {
  const aRoot = a.depth === 0;
  const bRoot = b.depth === 0;
  if (aRoot !== bRoot)
    return {
      order: Number(bRoot) - Number(aRoot),
      rule: 'its project is at the repository root (a root project wins over sub-folder projects)',
    };
  if (a.dependencies !== b.dependencies)
    return {
      order: b.dependencies - a.dependencies,
      rule: 'it declares the most dependencies (seed 000 §4.2.2 rule 2)',
    };
  if (a.buildConfig !== b.buildConfig)
    return {
      order: Number(b.buildConfig) - Number(a.buildConfig),
      rule: 'it has build configuration (a lockfile, wrapper or build file; seed 000 §4.2.2 rule 3)',
    };
  return {
    order: ENVIRONMENT_ORDER.indexOf(a.environment) - ENVIRONMENT_ORDER.indexOf(b.environment),
    rule: `nothing else tells them apart; fixed order ${ENVIRONMENT_ORDER.join(' > ')}`,
  };
}

export interface Decision {
  environment: EnvironmentName;
  candidates: EnvironmentCandidate[];
  proposals: Partial<Record<EnvironmentName, EnvironmentProposal>>;
  reasons: string[];
}

/** Workspace members, nested projects, package-manager notes and the checked version pin of the choice. */
function detailsOf(chosen: Group, proposal: EnvironmentProposal): string[] {
  const details: string[] = [];
  if (chosen.members.length > 0)
    details.push(`workspace members counted: ${where(chosen.members.map((p) => p.dir))}`);
  if (chosen.top.length > MAX_PROJECTS)
    details.push(
      `${chosen.top.length} ${chosen.environment} projects; setup covers the first ${MAX_PROJECTS}`,
    );
  if (chosen.nested.length > 0)
    details.push(`nested projects not set up: ${where(chosen.nested.map((p) => p.dir))}`);
  for (const project of chosen.top.slice(0, MAX_PROJECTS)) {
    details.push(...project.notes.map((n) => (project.dir === '.' ? n : `${project.dir}/: ${n}`)));
  }
  const pinned = proposal.versions.find((v) => v.minimum) ?? proposal.versions[0];
  if (pinned)
    details.push(
      `${pinned.language} ${pinned.spec} from ${pinned.source}${pinned.minimum ? ` (checked as >= ${pinned.minimum})` : ''}`,
    );
  return details;
}

const sharesFolder = (a: Group, b: Group) => a.top.some((p) => b.top.some((q) => q.dir === p.dir));

export function decide(projects: Project[]): Decision {
  const groups = ENVIRONMENT_ORDER.map((env) => projects.filter((p) => p.environment === env))
    .filter((list) => list.length > 0)
    .map((list) => groupOf(list[0]!.environment, list));
  const proposals: Decision['proposals'] = {};
  for (const group of groups) proposals[group.environment] = proposalOf(group, projects);
  const reasons = groups.map(
    (g) =>
      `${g.environment}: ${fileNames(g)} at ${where(g.top.map((p) => p.dir))}; ${g.dependencies} ${g.dependencies === 1 ? 'dependency' : 'dependencies'}; ${g.top[0]!.packageManager}`,
  );
  if (groups.length === 0) {
    reasons.push('no environment files found: python, the default (seed 000 §4.2.3)');
    return {
      environment: 'python',
      candidates: [],
      proposals: { python: defaultProposal('python') },
      reasons,
    };
  }
  let ranked = groups;
  const conda = groups.find((g) => g.environment === 'miniforge');
  const python = groups.find((g) => g.environment === 'python');
  if (conda && python && (conda.depth === 0 || sharesFolder(conda, python))) {
    ranked = groups.filter((g) => g !== python);
    reasons.push(
      'a conda environment file is present: conda is needed, so miniforge rather than python (seed 000 §4.2.1)',
    );
  }
  ranked = [...ranked].sort((a, b) => rank(a, b).order);
  const chosen = ranked[0]!;
  if (ranked.length === 1) {
    reasons.push(
      `chose ${chosen.environment}: the only environment with project files (seed 000 §4.2.1)`,
    );
  } else {
    reasons.push(
      `chose ${chosen.environment} over ${ranked[1]!.environment}: ${rank(chosen, ranked[1]!).rule}`,
    );
    reasons.push(
      'polyglot repository: the planner may still pick the language the task targets (seed 000 §4.2.2 rule 1)',
    );
  }
  reasons.push(...detailsOf(chosen, proposals[chosen.environment]!));
  return {
    environment: chosen.environment,
    candidates: groups.map(candidateOf),
    proposals,
    reasons,
  };
}
