import type { VersionPin } from '../../../../core/environment.ts';
import { ciVersionPin, findCommands, type Evidence } from '../../detect/evidence.ts';
import { globMembers } from '../../detect/members.ts';
import {
  filesOf,
  isPlainName,
  maybe,
  shellWord,
  unique,
  versionFile,
  type EvidenceRef,
  type AnalyzeContext,
  type Analyzer,
  type FolderFiles,
  type Project,
} from '../../detect/project.ts';
import {
  parsePipfile,
  parsePyproject,
  parseRequirements,
  parseSetupCfg,
  parseSetupPy,
  type PyDependency,
  type Pyproject,
} from './parse.ts';
import { pythonInstalledChecks, pythonVersionCheck } from './checks.ts';
import { planInstall } from './install.ts';

export { pythonInstalledChecks, pythonVersionCheck } from './checks.ts';
import { firstLine, parseToolVersions, pin } from '../../detect/versions.ts';

/** The runtime's names in `.tool-versions` and `mise.toml`. */
export const TOOL_NAMES = { python: 'python' } as const;

const MAX_REQUIREMENT_FILES = 4;
const MAX_CHECKED = 5;

function requirementKeys(folder: FolderFiles): string[] {
  return [...folder.files.keys()].filter(
    (k) => /requirements?[^/]*\.(?:txt|in)$/i.test(k) || k.startsWith('requirements/'),
  );
}

/** `requirements.txt` plus dev/test files; else the `requirements/` folder; `.in` only without a `.txt`. */
function filesToInstall(keys: string[]): string[] {
  const compiled = new Set(keys.filter((k) => k.endsWith('.txt')).map((k) => k.slice(0, -4)));
  const usable = keys.filter((k) => k.endsWith('.txt') || !compiled.has(k.slice(0, -3)));
  const main = usable.filter((k) => k === 'requirements.txt');
  const extra = usable.filter((k) => k !== 'requirements.txt' && /dev|test/i.test(k));
  let chosen = [...main, ...extra];
  if (chosen.length === 0) {
    chosen = usable.sort((a, b) => Number(!/base|common/.test(a)) - Number(!/base|common/.test(b)));
  }
  return chosen.slice(0, MAX_REQUIREMENT_FILES);
}

interface PythonFacts {
  pyproject: Pyproject | undefined;
  requirements: { key: string; installsProject: boolean; deps: PyDependency[] }[];
  dependencies: PyDependency[];
  pins: (VersionPin | undefined)[];
  notes: string[];
  /** Line of `build-backend` in pyproject.toml (0 when absent). */
  backendLine: number;
}

async function readFacts(folder: FolderFiles, context: AnalyzeContext): Promise<PythonFacts> {
  const facts: PythonFacts = {
    pyproject: undefined,
    requirements: [],
    dependencies: [],
    pins: [],
    notes: [],
    backendLine: 0,
  };
  const text = async (key: string) => {
    const rel = folder.files.get(key);
    return rel === undefined ? undefined : context.read(rel);
  };
  const pyprojectText = await text('pyproject.toml');
  if (pyprojectText !== undefined) {
    try {
      facts.pyproject = parsePyproject(pyprojectText);
      facts.backendLine =
        pyprojectText.split(/\r?\n/).findIndex((l) => /^\s*build-backend\s*=/.test(l)) + 1;
    } catch (error) {
      facts.notes.push(
        `pyproject.toml is not valid TOML (${(error as Error).message.split('\n')[0]})`,
      );
    }
  }
  for (const key of filesToInstall(requirementKeys(folder))) {
    const parsed = parseRequirements((await text(key)) ?? '');
    const deps = [...parsed.dependencies];
    for (const include of parsed.includes) {
      const base = key.includes('/') ? key.slice(0, key.lastIndexOf('/') + 1) : '';
      const included = await text(`${base}${include}`.replace(/^\.\//, ''));
      if (included !== undefined) deps.push(...parseRequirements(included).dependencies);
    }
    facts.requirements.push({ key, installsProject: parsed.installsProject, deps });
    facts.dependencies.push(...deps);
  }
  await readOtherManifests(folder, context, facts, text);
  return facts;
}

async function readOtherManifests(
  folder: FolderFiles,
  context: AnalyzeContext,
  facts: PythonFacts,
  text: (key: string) => Promise<string | undefined>,
): Promise<void> {
  const rel = (key: string) => versionFile(folder, context, key);
  const pythonVersion = rel('.python-version');
  if (pythonVersion)
    facts.pins.push(
      pin('python', firstLine((await context.read(pythonVersion)) ?? ''), pythonVersion),
    );
  const runtime = rel('runtime.txt');
  if (runtime)
    facts.pins.push(pin('python', firstLine((await context.read(runtime)) ?? ''), runtime));
  const pipfile = await text('Pipfile');
  if (pipfile !== undefined) {
    try {
      const parsed = parsePipfile(pipfile);
      facts.dependencies.push(...parsed.dependencies);
      if (parsed.python) facts.pins.push(pin('python', parsed.python, 'Pipfile [requires]'));
    } catch (error) {
      facts.notes.push(`Pipfile is not valid TOML (${(error as Error).message.split('\n')[0]})`);
    }
  }
  const py = facts.pyproject;
  if (py) {
    facts.dependencies.push(...py.dependencies);
    if (py.requiresPython)
      facts.pins.push(pin('python', py.requiresPython, 'pyproject.toml [project] requires-python'));
    if (py.poetryPython)
      facts.pins.push(
        pin('python', py.poetryPython, 'pyproject.toml [tool.poetry.dependencies] python'),
      );
  }
  for (const [key, parse] of [
    ['setup.py', parseSetupPy],
    ['setup.cfg', parseSetupCfg],
  ] as const) {
    const content = await text(key);
    if (content === undefined) continue;
    const parsed = parse(content);
    facts.dependencies.push(...parsed.dependencies);
    if (parsed.python) facts.pins.push(pin('python', parsed.python, `${key} python_requires`));
  }
  const tools = rel('.tool-versions');
  if (tools)
    facts.pins.push(
      ...parseToolVersions((await context.read(tools)) ?? '', tools, TOOL_NAMES).filter(
        (p) => p.language === 'python',
      ),
    );
}

function checkedNames(installsOwn: boolean, facts: PythonFacts): string[] {
  const own = facts.pyproject?.name;
  const names = [
    ...(installsOwn && own ? [own] : []),
    ...facts.dependencies.filter((d) => !d.conditional && d.name).map((d) => d.name!),
  ].filter(isPlainName);
  const seen = new Set<string>();
  return names
    .filter((n) => !seen.has(n.toLowerCase()) && seen.add(n.toLowerCase()))
    .slice(0, MAX_CHECKED);
}

/**
 * What pip installs inside a conda environment next to this project: the
 * project itself without dependencies (conda provides them), and a
 * requirements file only when CI or the docs install it together with conda
 * (otherwise it is the pip alternative to the environment file, and pip would
 * replace conda's numpy, pandas …).
 */
function condaPipArgs(folder: FolderFiles, facts: PythonFacts, evidence: Evidence): string {
  const args: string[] = [];
  const withConda = (c: { file: string; context: string }) =>
    evidence.commands.some(
      (o) => o.command.tool === 'conda' && o.file === c.file && o.context === c.context,
    ) ||
    evidence.runtimes.some(
      (r) => r.environment === 'miniforge' && r.file === c.file && c.context.startsWith('job'),
    );
  for (const c of findCommands(evidence, { tool: 'pip', kind: 'install', secondary: true })) {
    if (!withConda(c)) continue;
    c.command.args.forEach((a, i) => {
      const file = c.command.args[i + 1];
      if (/^(?:-r|--requirement)$/.test(a) && file && folder.files.has(file))
        args.push(`-r ${shellWord(file)}`);
    });
  }
  if (facts.pyproject?.installable || folder.files.has('setup.py')) args.push('--no-deps -e .');
  return unique(args).join(' ');
}

/** Where in its file each pin is written: [source prefix, line pattern]. */
const PIN_LINES: [RegExp, RegExp][] = [
  [/^pyproject\.toml \[project\]/, /^\s*requires-python\s*=/],
  [/^pyproject\.toml \[tool\.poetry/, /^\s*python\s*=/],
  [/^Pipfile/, /^\s*python_(?:full_)?version\s*=/],
  [/^setup\.(?:py|cfg)/, /python_requires/],
  [/\.tool-versions/, /^\s*python\s/],
  [/(?:^|\/)(?:\.python-version|runtime\.txt)$/, /\S/],
];

/** File and line of each of the folder's version pins, for the runtime decision's evidence. */
async function pinRefs(
  folder: FolderFiles,
  context: AnalyzeContext,
  pins: VersionPin[],
): Promise<EvidenceRef[]> {
  const refs: EvidenceRef[] = [];
  for (const p of pins) {
    const rule = PIN_LINES.find(([source]) => source.test(p.source));
    if (!rule) continue;
    const name = p.source.split(' ')[0]!;
    const file = folder.files.get(name) ?? versionFile(folder, context, name) ?? name;
    const text = (await context.read(file)) ?? '';
    const line = text.split(/\r?\n/).findIndex((l) => rule[1].test(l)) + 1;
    refs.push({ file, line, text: `${p.source}: ${p.spec}` });
  }
  return refs;
}

export const analyzePython: Analyzer = async (folder, context) => {
  const facts = await readFacts(folder, context);
  const has = (key: string) => folder.files.has(key);
  const isProject =
    facts.requirements.length > 0 ||
    has('setup.py') ||
    has('Pipfile') ||
    (has('pyproject.toml') && (facts.pyproject?.isProject ?? true));
  if (!isProject) return undefined;
  const plan = planInstall(folder, facts, context.evidence);
  const versions = facts.pins.filter((p): p is VersionPin => p !== undefined);
  const refs = await pinRefs(folder, context, versions);
  const ci = ciVersionPin(context.evidence, 'python');
  if (ci) versions.push(ci.pin);
  if (ci) refs.push(ci.ref);
  const locks = ['poetry.lock', 'Pipfile.lock', 'uv.lock', 'pdm.lock'].filter(has);
  const py = facts.pyproject;
  const project: Project = {
    environment: 'python',
    dir: folder.dir,
    manifests: filesOf(folder, 'python'),
    dependencies: unique(facts.dependencies.map((d) => d.text)),
    packageManager: plan.manager,
    versions,
    hasBuildConfig: locks.length > 0 || has('setup.py') || Boolean(py?.installable),
    workspace: Boolean(py?.uvWorkspace),
    ...maybe('isMember', py?.uvWorkspace ? globMembers(py.uvMembers, py.uvExclude) : undefined),
    ...maybe('published', publishedRef(folder, facts)),
    setup: plan.setup,
    versionCheck: (minimum) => pythonVersionCheck(plan.python, minimum),
    checks: pythonInstalledChecks(plan.python, checkedNames(plan.installsOwn, facts)),
    notes: [...facts.notes, ...plan.notes],
    decisions: plan.decisions,
    versionRefs: refs,
  };
  const inConda = condaPipArgs(folder, facts, context.evidence);
  if (inConda) project.condaPipArgs = inConda;
  return project;
};

/** A package others install: a pyproject with a build backend and a name, or a setup.py. */
function publishedRef(folder: FolderFiles, facts: PythonFacts): EvidenceRef | undefined {
  const py = facts.pyproject;
  if (py?.buildBackend && py.name)
    return {
      file: folder.files.get('pyproject.toml')!,
      line: facts.backendLine,
      text: `build-backend = "${py.buildBackend}" (${py.name})`,
    };
  const setupPy = folder.files.get('setup.py');
  return setupPy ? { file: setupPy, line: 0, text: 'setup.py' } : undefined;
}
