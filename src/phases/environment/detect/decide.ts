import type {
  DetectionDecision,
  EnvironmentCandidate,
  EnvironmentName,
  EnvironmentProposal,
  EvidenceRef,
  VerificationCheck,
  VersionPin,
} from '../../../core/environment.ts';
import { findCommands, refOf, type Evidence } from './evidence.ts';
import { isWithin } from './files.ts';
import { at, candidateOf, groupOf, rank, type Group } from './groups.ts';
import { shellWord, unique, type Project } from './project.ts';
import { rangeOf } from './versions.ts';

/** What the ranking and the proposals need to know of each environment (from the registry). */
export interface DecisionKind {
  name: EnvironmentName;
  /** Rank when nothing else tells two environments apart (lower wins). */
  tieBreak: number;
  /**
   * Another environment this one replaces when both have a project at the
   * root or in one folder (a conda file next to `requirements.txt`), and why.
   */
  supersedes?: { environment: EnvironmentName; reason: string };
  /** All pins together bound the runtime version (the JDK rule); else the first pin's minimum counts. */
  rangeOfAllPins?: { label: string; rule: string };
  /** The environment whose tools' test commands count for this one (miniforge runs Python's). */
  testEvidence?: EnvironmentName;
  /** The check used when the planner picks the environment and no project was found. */
  defaultCheck: VerificationCheck;
}

/** The environments to rank and the one chosen when no project is found. */
export interface DecisionKinds {
  kinds: readonly DecisionKind[];
  fallback: EnvironmentName;
}

const kindOf = (all: DecisionKinds, name: EnvironmentName) =>
  all.kinds.find((k) => k.name === name)!;
/** Top-level projects of one environment that get setup commands. */
const MAX_PROJECTS = 5;

const inDir = (dir: string, command: string) =>
  dir === '.' ? command : `cd ${shellWord(dir)} && ${command}`;

function proposalOf(group: Group, all: Project[], kind: DecisionKind): EnvironmentProposal {
  const top = group.top.slice(0, MAX_PROJECTS);
  const setup: string[] = [];
  const verification: VerificationCheck[] = [];
  for (const project of top) {
    setup.push(...project.setup.map((c) => inDir(project.dir, c)));
    // what pip installs inside the environment, from the superseded project in the same folder
    const inside = all.find(
      (p) =>
        p.environment === kind.supersedes?.environment && p.dir === project.dir && p.condaPipArgs,
    );
    if (project.runPrefix && inside)
      setup.push(
        inDir(project.dir, `${project.runPrefix} python -m pip install ${inside.condaPipArgs}`),
      );
    // a workspace root's own files may pin nothing while a member does (Gradle toolchains often live in app/)
    const members = group.members.filter((m) => isWithin(m.dir, project.dir));
    const range = rangeOf(
      Boolean(kind.rangeOfAllPins),
      [project, ...members].flatMap((p) => p.versions),
    );
    const checks = [project.versionCheck(range.minimum, range.maximum), ...project.checks];
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
    versions: distinctPins([...group.top, ...group.members].flatMap((p) => p.versions)),
  };
}

/** One entry per distinct fact: the same pin read for every member (CI's, a shared file) is listed once. */
function distinctPins(pins: VersionPin[]): VersionPin[] {
  const seen = new Set<string>();
  return pins.filter((p) => {
    const key = JSON.stringify([p.language, p.spec, p.minimum, p.maximum, p.source]);
    return !seen.has(key) && Boolean(seen.add(key));
  });
}

/** Setup and verification for an environment no project asked for (a planner's choice). */
export function defaultProposal(kind: Pick<DecisionKind, 'defaultCheck'>): EnvironmentProposal {
  return {
    setup_commands: [],
    verification: [kind.defaultCheck],
    package_manager: '',
    project_dirs: [],
    dependencies: [],
    versions: [],
  };
}

const where = (dirs: string[]) => dirs.map((d) => (d === '.' ? 'the root' : `${d}/`)).join(', ');
const fileNames = (group: Group) =>
  unique(group.top.flatMap((p) => p.manifests.map((m) => m.split('/').pop()!))).join(', ');
const manifestRefs = (group: Group): EvidenceRef[] =>
  group.top
    .flatMap((p) => p.manifests.slice(0, 1))
    .map((file) => ({ file, line: 0, text: 'the project file' }));

export interface Decision {
  environment: EnvironmentName;
  candidates: EnvironmentCandidate[];
  proposals: Partial<Record<EnvironmentName, EnvironmentProposal>>;
  reasons: string[];
  decisions: DetectionDecision[];
  testCommand: { command: string; evidence: EvidenceRef[] } | undefined;
}

/** Workspace members, nested projects, package-manager notes and the checked version pin of the choice. */
function detailsOf(chosen: Group, proposal: EnvironmentProposal, kind: DecisionKind): string[] {
  const details: string[] = [];
  if (chosen.members.length > 0)
    details.push(`workspace members counted: ${where(chosen.members.map((p) => p.dir))}`);
  if (chosen.top.length > MAX_PROJECTS)
    details.push(
      `${chosen.top.length} ${chosen.environment} projects; setup covers the first ${MAX_PROJECTS}`,
    );
  if (chosen.nested.length > 0)
    details.push(
      `nested projects not set up (not members of the build): ${where(chosen.nested.map((p) => p.dir))}`,
    );
  for (const project of chosen.top.slice(0, MAX_PROJECTS)) {
    details.push(...project.notes.map((n) => (project.dir === '.' ? n : `${project.dir}/: ${n}`)));
  }
  const range = rangeOf(Boolean(kind.rangeOfAllPins), proposal.versions);
  const pinned = proposal.versions.find((v) => v.minimum) ?? proposal.versions[0];
  if (kind.rangeOfAllPins && (range.minimum || range.maximum))
    details.push(
      `${kind.rangeOfAllPins.label} range checked: ${range.minimum ?? '?'} to ${range.maximum ?? 'any newer'} (from ${proposal.versions.map((v) => v.source).join('; ')})`,
    );
  else if (pinned)
    details.push(
      `${pinned.language} ${pinned.spec} from ${pinned.source}${pinned.minimum ? ` (checked as >= ${pinned.minimum})` : ''}`,
    );
  return details;
}

/** The checked runtime range of the chosen group, with where each bound comes from. */
function runtimeDecision(
  group: Group,
  proposal: EnvironmentProposal,
  kind: DecisionKind,
): DetectionDecision[] {
  if (proposal.versions.length === 0) return [];
  const language = proposal.versions[0]!.language;
  const allPins = kind.rangeOfAllPins?.rule;
  const range = rangeOf(Boolean(allPins), proposal.versions);
  const projects = [...group.top, ...group.members];
  const located = projects.flatMap((p) => p.versionRefs ?? []);
  const others = proposal.versions
    .filter((v) => !located.some((r) => v.source.startsWith(r.file) || r.text.startsWith(v.source)))
    .map((v) => ({ file: v.source.split(' ')[0]!, line: 0, text: `${v.source}: ${v.spec}` }));
  const choice =
    range.minimum || range.maximum
      ? `${language} ${range.minimum ?? '?'}${range.maximum ? ` to ${range.maximum}` : ' or newer'}`
      : `${language} (no minimum)`;
  return [
    {
      topic: 'runtime_version',
      choice,
      rule: allPins ?? 'the first version pin with a lower bound',
      evidence: [...located, ...others],
    },
  ];
}

/**
 * The test command of the chosen environment: CI first, then task runners,
 * then docs; a command that only checks (a type check, a lint) or needs a
 * browser comes after any that runs tests in Node.
 */
function testCommandOf(kind: DecisionKind, evidence: Evidence): Decision['testCommand'] {
  const own = findCommands(evidence, { environment: kind.testEvidence ?? kind.name, kind: 'test' });
  const found =
    own.find((c) => !c.command.lesser) ??
    findCommands(evidence, { tool: ['make', 'just'], kind: 'test' })[0] ??
    own[0];
  return found ? { command: found.text, evidence: [refOf(found)] } : undefined;
}

function environmentDecision(
  chosen: Group,
  runnerUp: Group | undefined,
  order: readonly EnvironmentName[],
): { decision: DetectionDecision; reason: string } {
  if (!runnerUp) {
    const rule = 'the only environment with project files';
    return {
      decision: {
        topic: 'environment',
        choice: chosen.environment,
        rule,
        evidence: [...(chosen.ci ? [chosen.ci.ref] : []), ...manifestRefs(chosen)],
      },
      reason: `chose ${chosen.environment}: ${rule}`,
    };
  }
  const ranking = rank(chosen, runnerUp, order);
  return {
    decision: {
      topic: 'environment',
      choice: chosen.environment,
      rule: `over ${runnerUp.environment}: ${ranking.rule}`,
      evidence: ranking.evidence.length > 0 ? ranking.evidence : manifestRefs(chosen),
    },
    reason: `chose ${chosen.environment} over ${runnerUp.environment}: ${ranking.rule}`,
  };
}

const sharesFolder = (a: Group, b: Group) => a.top.some((p) => b.top.some((q) => q.dir === p.dir));

/** Drops the environments another one supersedes (a conda file makes python's projects miniforge's). */
function withoutSuperseded(groups: Group[], all: DecisionKinds, reasons: string[]): Group[] {
  let ranked = groups;
  for (const group of groups) {
    const supersedes = kindOf(all, group.environment).supersedes;
    const other = supersedes && ranked.find((g) => g.environment === supersedes.environment);
    if (!supersedes || !other || !(group.depth === 0 || sharesFolder(group, other))) continue;
    if (other.ci && group.top.every((p) => p.binderOnly)) {
      reasons.push(
        `${group.top[0]!.manifests[0]} is a binder runtime no CI job uses; ${other.environment}'s CI (${at(other.ci.ref)}) decides`,
      );
      continue;
    }
    ranked = ranked.filter((g) => g !== other);
    reasons.push(supersedes.reason);
  }
  return ranked;
}

/** Nothing found: the fallback environment with its default check. */
function fallbackDecision(all: DecisionKinds, evidence: Evidence, reasons: string[]): Decision {
  const kind = kindOf(all, all.fallback);
  const rule = `no environment files found: ${kind.name}, the default`;
  reasons.push(rule);
  return {
    environment: kind.name,
    candidates: [],
    proposals: { [kind.name]: defaultProposal(kind) },
    reasons,
    decisions: [{ topic: 'environment', choice: kind.name, rule, evidence: [] }],
    testCommand: testCommandOf(kind, evidence),
  };
}

export function decide(projects: Project[], evidence: Evidence, all: DecisionKinds): Decision {
  const order = [...all.kinds].sort((a, b) => a.tieBreak - b.tieBreak).map((k) => k.name);
  const groups = order
    .map((env) => projects.filter((p) => p.environment === env))
    .filter((list) => list.length > 0)
    .map((list) =>
      groupOf(list[0]!.environment, list, evidence, kindOf(all, list[0]!.environment).testEvidence),
    );
  const proposals: Decision['proposals'] = {};
  for (const group of groups)
    proposals[group.environment] = proposalOf(group, projects, kindOf(all, group.environment));
  const reasons = groups.map(
    (g) =>
      `${g.environment}: ${fileNames(g)} at ${where(g.top.map((p) => p.dir))}; ${g.dependencies} ${g.dependencies === 1 ? 'dependency' : 'dependencies'}; ${g.top[0]!.packageManager}${g.ci ? `; CI: ${at(g.ci.ref)}` : ''}`,
  );
  if (groups.length === 0) return fallbackDecision(all, evidence, reasons);
  const ranked = [...withoutSuperseded(groups, all, reasons)].sort(
    (a, b) => rank(a, b, order).order,
  );
  const chosen = ranked[0]!;
  const kind = kindOf(all, chosen.environment);
  const { decision, reason } = environmentDecision(chosen, ranked[1], order);
  reasons.push(reason);
  if (ranked.length > 1)
    reasons.push('polyglot repository: the planner may still pick the language the task targets');
  reasons.push(...detailsOf(chosen, proposals[chosen.environment]!, kind));
  const testCommand = testCommandOf(kind, evidence);
  const decisions: DetectionDecision[] = [
    decision,
    ...chosen.top.slice(0, MAX_PROJECTS).flatMap((p) => p.decisions ?? []),
    ...runtimeDecision(chosen, proposals[chosen.environment]!, kind),
    ...(testCommand
      ? [
          {
            topic: 'test_command' as const,
            choice: testCommand.command,
            rule: 'the test command the project itself runs (CI, then task runners, then docs)',
            evidence: testCommand.evidence,
          },
        ]
      : []),
  ];
  return {
    environment: chosen.environment,
    candidates: groups.map(candidateOf),
    proposals,
    reasons,
    decisions,
    testCommand,
  };
}
