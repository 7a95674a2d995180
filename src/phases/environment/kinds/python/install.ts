import type { DetectionDecision, EvidenceRef } from '../../../../core/environment.ts';
import { findCommands, refOf, type CommandEvidence, type Evidence } from '../../detect/evidence.ts';
import { shellWord, type FolderFiles } from '../../detect/project.ts';
import type { Pyproject } from './parse.ts';

/**
 * How a Python project is installed, the way its maintainers do: the package
 * manager its lockfile or CI names, with the extras and groups CI installs
 * (default: the test group or extra when one exists).
 */
export type Manager = 'poetry' | 'pipenv' | 'uv' | 'pdm' | 'pip';

export interface InstallPlan {
  manager: Manager;
  setup: string[];
  /** How later commands reach the project's Python. */
  python: string;
  /** The install puts the project itself into the environment. */
  installsOwn: boolean;
  notes: string[];
  decisions: DetectionDecision[];
}

export interface InstallFacts {
  pyproject: Pyproject | undefined;
  /** Requirements files chosen from the folder (`requirements.txt`, dev/test ones). */
  requirements: { key: string; installsProject: boolean }[];
}

const LOCKS: [string, Manager][] = [
  ['poetry.lock', 'poetry'],
  ['Pipfile.lock', 'pipenv'],
  ['uv.lock', 'uv'],
  ['pdm.lock', 'pdm'],
];
const TEST_NAMES = /^(?:test|tests|testing|dev)$/;
const MANAGER_TOOLS: Manager[] = ['poetry', 'pipenv', 'uv', 'pdm', 'pip'];

/**
 * A tool kept out of the project's interpreter: Poetry's and PDM's own
 * advice is an isolated environment (pipx, or a venv of its own).
 */
export function isolatedTool(name: 'poetry' | 'pdm'): { install: string; bin: string } {
  const home = `$HOME/.mr-agent/tools/${name}`;
  return {
    install: `python3 -m venv "${home}" && "${home}/bin/python" -m pip install --quiet ${name}`,
    bin: `"${home}/bin/${name}"`,
  };
}

/** The CI's (or task runner's, or docs') install commands of one tool, all from the first job that has one. */
function installCommands(evidence: Evidence, tool: Manager): CommandEvidence[] {
  const all = findCommands(evidence, { environment: 'python', tool, kind: 'install' });
  const first = all[0];
  return first ? all.filter((c) => c.file === first.file && c.context === first.context) : [];
}

function chooseManager(
  folder: FolderFiles,
  py: Pyproject | undefined,
  evidence: Evidence,
): { manager: Manager; rule: string; refs: EvidenceRef[] } {
  const locked = LOCKS.filter(([file]) => folder.files.has(file));
  const present = new Set<Manager>(locked.map(([, m]) => m));
  if (py?.poetry) present.add('poetry');
  if (folder.files.has('Pipfile')) present.add('pipenv');
  if (py?.pdm) present.add('pdm');
  const ci = findCommands(evidence, {
    environment: 'python',
    tool: MANAGER_TOOLS,
    kind: 'install',
  }).find((c) => present.size === 0 || present.has(c.command.tool as Manager));
  if (
    ci &&
    (present.size === 0 || present.has(ci.command.tool as Manager)) &&
    ci.command.tool !== 'pip'
  )
    return {
      manager: ci.command.tool as Manager,
      rule: `the project's ${ci.source === 'docs' ? 'docs install' : 'CI installs'} with it`,
      refs: [refOf(ci)],
    };
  const lock = locked[0];
  if (lock) {
    const rule =
      locked.length > 1
        ? `several lockfiles (${locked.map(([f]) => f).join(', ')}); precedence poetry > pipenv > uv > pdm`
        : `its lockfile ${lock[0]}`;
    return {
      manager: lock[1],
      rule,
      refs: [{ file: folder.files.get(lock[0])!, line: 0, text: lock[0] }],
    };
  }
  for (const manager of ['poetry', 'pipenv', 'pdm'] as const)
    if (present.has(manager))
      return {
        manager,
        rule: `${manager === 'pipenv' ? 'Pipfile' : `[tool.${manager}]`} without a lockfile`,
        refs: [],
      };
  return { manager: 'pip', rule: 'no lockfile: pip', refs: ci ? [refOf(ci)] : [] };
}

/**
 * The options of `args` worth repeating, in their order: `flags` alone,
 * `options` with their value (`--with a,b` and `--with=a` alike; aliases map
 * to one spelling; comma lists are split).
 */
function keptOptions(
  args: string[],
  flags: ReadonlySet<string>,
  options: Readonly<Record<string, string>>,
): string[] {
  const kept: string[] = [];
  args.forEach((arg, i) => {
    if (flags.has(arg)) {
      if (!kept.includes(arg)) kept.push(arg);
      return;
    }
    const [name, inline] = arg.split(/=(.*)/s);
    const canonical = options[name!];
    if (!canonical) return;
    const value = inline ?? args[i + 1] ?? '';
    for (const v of value.split(/[\s,]+/).filter(Boolean)) kept.push(canonical, shellWord(v));
  });
  return kept;
}

const UV_FLAGS = new Set([
  '--all-extras',
  '--all-groups',
  '--no-dev',
  '--locked',
  '--frozen',
  '--all-packages',
  '--no-default-groups',
]);
const UV_OPTIONS = {
  '--extra': '--extra',
  '--group': '--group',
  '--only-group': '--only-group',
  '--no-group': '--no-group',
  '--package': '--package',
};

function uvSetup(folder: FolderFiles, py: Pyproject | undefined, ci: CommandEvidence[]): string {
  const flags = ci.flatMap((c) => keptOptions(c.command.args, UV_FLAGS, UV_OPTIONS));
  if (ci.length === 0) {
    const group = py?.groups.find((g) => TEST_NAMES.test(g) && g !== 'dev');
    const extra = py?.extras.find((e) => TEST_NAMES.test(e));
    if (group) flags.push('--group', group);
    if (extra) flags.push('--extra', extra);
  }
  if (folder.files.has('uv.lock') && !flags.includes('--locked') && !flags.includes('--frozen'))
    flags.unshift('--locked');
  return ['uv sync', ...flags].join(' ');
}

const POETRY_FLAGS = new Set(['--all-extras', '--all-groups', '--sync']);
const POETRY_OPTIONS = {
  '--with': '--with',
  '--only': '--only',
  '--without': '--without',
  '-E': '--extras',
  '--extras': '--extras',
};

function poetrySetup(py: Pyproject | undefined, ci: CommandEvidence[], bin: string): string {
  const args = ci.flatMap((c) => keptOptions(c.command.args, POETRY_FLAGS, POETRY_OPTIONS));
  if (ci.length === 0) {
    const optional = py?.poetryGroups.find((g) => g.optional && TEST_NAMES.test(g.name));
    if (optional) args.push('--with', optional.name);
  }
  return [bin, 'install --no-interaction', ...args].join(' ');
}

function pdmSetup(folder: FolderFiles, ci: CommandEvidence[], bin: string): string {
  const args = ci.flatMap((c) =>
    keptOptions(c.command.args, new Set(['-d', '--dev']), { '-G': '-G', '--group': '-G' }),
  );
  if (folder.files.has('pdm.lock')) args.push('--frozen-lockfile');
  return [bin, 'install', ...args].join(' ');
}

/** `pip install` arguments from CI's commands: `-r`/`-c` files that exist, `-e .`, `.[extras]`. */
function pipArgumentsFromCi(folder: FolderFiles, ci: CommandEvidence[]): string[] {
  const found: string[] = [];
  for (const c of ci) {
    const args = c.command.args.slice(1);
    args.forEach((a, i) => {
      const value = args[i + 1] ?? '';
      if (/^(?:-r|--requirement)$/.test(a) && folder.files.has(value))
        found.push(`-r ${shellWord(value)}`);
      else if (/^(?:-c|--constraint)$/.test(a) && folder.files.has(value))
        found.push(`-c ${shellWord(value)}`);
      else if (/^(?:-e|--editable)$/.test(a) && value.startsWith('.'))
        found.push(`-e ${shellWord(value)}`);
      else if (/^\.(?:\[[\w,.-]+\])?$/.test(a) && !/^(?:-e|--editable)$/.test(args[i - 1] ?? ''))
        found.push(shellWord(a));
    });
  }
  return [...new Set(found)];
}

/**
 * `pip install` arguments: CI's when it has them, else the requirements
 * files and the project with its test extras.
 */
export function pipArguments(
  folder: FolderFiles,
  facts: InstallFacts,
  ci: CommandEvidence[],
): { args: string; installsOwn: boolean } {
  const fromCi = pipArgumentsFromCi(folder, ci);
  if (fromCi.length > 0)
    return { args: fromCi.join(' '), installsOwn: fromCi.some((a) => !/^-[rc] /.test(a)) };
  const args = facts.requirements.map((r) => `-r ${shellWord(r.key)}`);
  const installable = facts.pyproject?.installable || folder.files.has('setup.py');
  const own = installable && !facts.requirements.some((r) => r.installsProject);
  if (own) {
    const extras = (facts.pyproject?.extras ?? []).filter((e) => TEST_NAMES.test(e));
    args.push(extras.length > 0 ? `-e ".[${extras.join(',')}]"` : '-e .');
  }
  return { args: args.join(' '), installsOwn: Boolean(own) };
}

/** The install of a Python project: manager, setup commands, and the decisions with their evidence. */
export function planInstall(
  folder: FolderFiles,
  facts: InstallFacts,
  evidence: Evidence,
): InstallPlan {
  const py = facts.pyproject;
  const { manager, rule, refs } = chooseManager(folder, py, evidence);
  const ci = installCommands(evidence, manager);
  const notes = [`package manager ${manager} (${rule})`];
  let setup: string[];
  let python = 'python3';
  let installsOwn = Boolean(py?.installable);
  if (manager === 'poetry' || manager === 'pdm') {
    const tool = isolatedTool(manager);
    setup = [
      tool.install,
      manager === 'poetry' ? poetrySetup(py, ci, tool.bin) : pdmSetup(folder, ci, tool.bin),
    ];
    python = `${tool.bin} run python`;
    installsOwn = manager === 'poetry' ? Boolean(py?.poetryPackageMode) : installsOwn;
    notes.push(
      `${manager} runs from its own virtualenv (${tool.bin}); the project's packages are in ${manager}'s environment: run commands with \`${tool.bin} run …\``,
    );
  } else if (manager === 'pipenv') {
    const locked = folder.files.has('Pipfile.lock');
    setup = [
      'python3 -m pip install pipenv',
      `python3 -m pipenv ${locked ? 'sync' : 'install'} --dev`,
    ];
    python = 'python3 -m pipenv run python';
    installsOwn = false;
  } else if (manager === 'uv') {
    setup = ['python3 -m pip install uv', uvSetup(folder, py, ci)];
    python = 'uv run python';
  } else {
    const pip = pipArguments(folder, facts, ci);
    setup = pip.args ? [`python3 -m pip install ${pip.args}`] : [];
    installsOwn = pip.installsOwn;
  }
  const install = setup[setup.length - 1];
  const decisions: DetectionDecision[] = [
    { topic: 'package_manager', choice: manager, rule, evidence: refs },
  ];
  if (install)
    decisions.push({
      topic: 'install',
      choice: install,
      rule:
        ci.length > 0
          ? `as the project's ${ci[0]!.source === 'ci' ? 'CI' : ci[0]!.source === 'tool' ? 'task runner' : 'docs'} installs (extras and groups kept)`
          : 'no install command in CI: the lockfile, with the test group or extra when one exists',
      evidence: ci.map(refOf),
    });
  return { manager, setup, python, installsOwn, notes, decisions };
}
