import type {
  DetectionDecision,
  EnvironmentCandidate,
  EnvironmentName,
  EnvironmentProposal,
  EvidenceRef,
  VerificationCheck,
} from '../../../core/environment.ts';
import { findCommands, refOf, type Evidence } from './evidence.ts';
import { isWithin } from './files.ts';
import { at, candidateOf, groupOf, rank, type Group } from './groups.ts';
import { shellWord, unique, type Project } from './project.ts';
import { rangeOf } from './versions.ts';

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

const inDir = (dir: string, command: string) =>
  dir === '.' ? command : `cd ${shellWord(dir)} && ${command}`;

function proposalOf(group: Group, all: Project[]): EnvironmentProposal {
  const top = group.top.slice(0, MAX_PROJECTS);
  const setup: string[] = [];
  const verification: VerificationCheck[] = [];
  for (const project of top) {
    setup.push(...project.setup.map((c) => inDir(project.dir, c)));
    const python = all.find(
      (p) => p.environment === 'python' && p.dir === project.dir && p.condaPipArgs,
    );
    if (project.runPrefix && python)
      setup.push(
        inDir(project.dir, `${project.runPrefix} python -m pip install ${python.condaPipArgs}`),
      );
    // a workspace root's own files may pin nothing while a member does (Gradle toolchains often live in app/)
    const members = group.members.filter((m) => isWithin(m.dir, project.dir));
    const range = rangeOf(
      group.environment === 'java' ? 'java' : undefined,
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
function detailsOf(chosen: Group, proposal: EnvironmentProposal): string[] {
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
  const range = rangeOf(chosen.environment === 'java' ? 'java' : undefined, proposal.versions);
  const pinned = proposal.versions.find((v) => v.minimum) ?? proposal.versions[0];
  if (chosen.environment === 'java' && (range.minimum || range.maximum))
    details.push(
      `JDK range checked: ${range.minimum ?? '?'} to ${range.maximum ?? 'any newer'} (from ${proposal.versions.map((v) => v.source).join('; ')})`,
    );
  else if (pinned)
    details.push(
      `${pinned.language} ${pinned.spec} from ${pinned.source}${pinned.minimum ? ` (checked as >= ${pinned.minimum})` : ''}`,
    );
  return details;
}

/** The checked runtime range of the chosen group, with where each bound comes from. */
function runtimeDecision(group: Group, proposal: EnvironmentProposal): DetectionDecision[] {
  if (proposal.versions.length === 0) return [];
  const language = proposal.versions[0]!.language;
  const range = rangeOf(language === 'java' ? 'java' : undefined, proposal.versions);
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
      rule:
        language === 'java'
          ? 'the highest minimum and the lowest maximum of the build, its wrapper, toolchains, jvm.config, version files and CI'
          : 'the first version pin with a lower bound',
      evidence: [...located, ...others],
    },
  ];
}

/** The test command of the chosen environment: CI first, then task runners, then docs. */
function testCommandOf(environment: EnvironmentName, evidence: Evidence): Decision['testCommand'] {
  const python = environment === 'miniforge' ? 'python' : environment;
  const found =
    findCommands(evidence, { environment: python as EnvironmentName, kind: 'test' })[0] ??
    findCommands(evidence, { tool: ['make', 'just'], kind: 'test' })[0];
  return found ? { command: found.text, evidence: [refOf(found)] } : undefined;
}

function environmentDecision(
  chosen: Group,
  runnerUp: Group | undefined,
  order: readonly EnvironmentName[],
): { decision: DetectionDecision; reason: string } {
  if (!runnerUp) {
    const rule = 'the only environment with project files (seed 000 §4.2.1)';
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

export function decide(projects: Project[], evidence: Evidence): Decision {
  const groups = ENVIRONMENT_ORDER.map((env) => projects.filter((p) => p.environment === env))
    .filter((list) => list.length > 0)
    .map((list) => groupOf(list[0]!.environment, list, evidence));
  const proposals: Decision['proposals'] = {};
  for (const group of groups) proposals[group.environment] = proposalOf(group, projects);
  const reasons = groups.map(
    (g) =>
      `${g.environment}: ${fileNames(g)} at ${where(g.top.map((p) => p.dir))}; ${g.dependencies} ${g.dependencies === 1 ? 'dependency' : 'dependencies'}; ${g.top[0]!.packageManager}${g.ci ? `; CI: ${at(g.ci.ref)}` : ''}`,
  );
  if (groups.length === 0) {
    const rule = 'no environment files found: python, the default (seed 000 §4.2.3)';
    reasons.push(rule);
    return {
      environment: 'python',
      candidates: [],
      proposals: { python: defaultProposal('python') },
      reasons,
      decisions: [{ topic: 'environment', choice: 'python', rule, evidence: [] }],
      testCommand: testCommandOf('python', evidence),
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
  ranked = [...ranked].sort((a, b) => rank(a, b, ENVIRONMENT_ORDER).order);
  const chosen = ranked[0]!;
  const { decision, reason } = environmentDecision(chosen, ranked[1], ENVIRONMENT_ORDER);
  reasons.push(reason);
  if (ranked.length > 1)
    reasons.push(
      'polyglot repository: the planner may still pick the language the task targets (seed 000 §4.2.2 rule 1)',
    );
  reasons.push(...detailsOf(chosen, proposals[chosen.environment]!));
  const testCommand = testCommandOf(chosen.environment, evidence);
  const decisions: DetectionDecision[] = [
    decision,
    ...chosen.top.slice(0, MAX_PROJECTS).flatMap((p) => p.decisions ?? []),
    ...runtimeDecision(chosen, proposals[chosen.environment]!),
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
