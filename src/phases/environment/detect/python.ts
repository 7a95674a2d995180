import type { VerificationCheck, VersionPin } from '../../../core/environment.ts';
import {
  filesOf,
  isPlainName,
  shellWord,
  unique,
  versionFile,
  type AnalyzeContext,
  type Analyzer,
  type FolderFiles,
  type Project,
} from './project.ts';
import {
  parsePipfile,
  parsePyproject,
  parseRequirements,
  parseSetupCfg,
  parseSetupPy,
  type PyDependency,
  type Pyproject,
} from './python-parse.ts';
import { firstLine, parseToolVersions, pin, pythonTuple } from './versions.ts';

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
}

async function readFacts(folder: FolderFiles, context: AnalyzeContext): Promise<PythonFacts> {
  const facts: PythonFacts = {
    pyproject: undefined,
    requirements: [],
    dependencies: [],
    pins: [],
    notes: [],
  };
  const text = async (key: string) => {
    const rel = folder.files.get(key);
    return rel === undefined ? undefined : context.read(rel);
  };
  const pyprojectText = await text('pyproject.toml');
  if (pyprojectText !== undefined) {
    try {
      facts.pyproject = parsePyproject(pyprojectText);
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
      ...parseToolVersions((await context.read(tools)) ?? '', tools).filter(
        (p) => p.language === 'python',
      ),
    );
}

type Manager = 'poetry' | 'pipenv' | 'uv' | 'pip';

function managerOf(folder: FolderFiles, facts: PythonFacts): Manager {
  if (folder.files.has('poetry.lock') || facts.pyproject?.poetry) return 'poetry';
  if (folder.files.has('Pipfile')) return 'pipenv';
  if (folder.files.has('uv.lock')) return 'uv';
  return 'pip';
}

function pipArguments(folder: FolderFiles, facts: PythonFacts): string {
  const args = facts.requirements.map((r) => `-r ${shellWord(r.key)}`);
  const installable = facts.pyproject?.installable || folder.files.has('setup.py');
  if (installable && !facts.requirements.some((r) => r.installsProject)) {
    const extras = (facts.pyproject?.extras ?? []).filter((e) =>
      /^(?:dev|test|tests|testing)$/.test(e),
    );
    args.push(extras.length > 0 ? `-e ".[${extras.join(',')}]"` : '-e .');
  }
  return args.join(' ');
}

function setupFor(manager: Manager, folder: FolderFiles, pipArgs: string): string[] {
  switch (manager) {
    case 'poetry':
      return [
        'python3 -m pip install poetry',
        'POETRY_VIRTUALENVS_CREATE=false poetry install --no-interaction',
      ];
    case 'pipenv':
      return [
        'python3 -m pip install pipenv',
        `pipenv install --dev --system ${folder.files.has('Pipfile.lock') ? '--deploy' : '--skip-lock'}`,
      ];
    case 'uv':
      return ['python3 -m pip install uv', 'uv sync --locked'];
    default:
      return pipArgs ? [`python3 -m pip install ${pipArgs}`] : [];
  }
}

/** `sys.version_info >= (3, 10)` → `True`; without a minimum the major version, `3`. */
export function pythonVersionCheck(python: string, minimum: string | undefined): VerificationCheck {
  return minimum
    ? {
        command: `${python} -c "import sys; print(sys.version_info >= ${pythonTuple(minimum)})"`,
        expected_output: 'True',
      }
    : { command: `${python} -c "import sys; print(sys.version_info.major)"`, expected_output: '3' };
}

/** "These distributions are installed" (importlib.metadata names, not import names). */
export function pythonInstalledChecks(python: string, names: string[]): VerificationCheck[] {
  if (names.length === 0) return [];
  const list = names.map((n) => `'${n}'`).join(', ');
  return [
    {
      command: `${python} -c "import importlib.metadata as m; [m.version(n) for n in [${list}]]; print('OK')"`,
      expected_output: 'OK',
    },
  ];
}

function checkedNames(manager: Manager, facts: PythonFacts, pipArgs: string): string[] {
  const own = facts.pyproject?.name;
  const installsOwn =
    (manager === 'poetry' && facts.pyproject?.poetryPackageMode) ||
    (manager === 'pip' && pipArgs.includes('-e '));
  const names = [
    ...(installsOwn && own ? [own] : []),
    ...facts.dependencies.filter((d) => !d.conditional && d.name).map((d) => d.name!),
  ].filter(isPlainName);
  const seen = new Set<string>();
  return names
    .filter((n) => !seen.has(n.toLowerCase()) && seen.add(n.toLowerCase()))
    .slice(0, MAX_CHECKED);
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
  const manager = managerOf(folder, facts);
  const pipArgs = manager === 'pip' ? pipArguments(folder, facts) : '';
  const versions = facts.pins.filter((p): p is VersionPin => p !== undefined);
  const python = manager === 'uv' ? 'uv run python' : 'python3';
  const locks = ['poetry.lock', 'Pipfile.lock', 'uv.lock', 'pdm.lock'].filter(has);
  const notes = [
    ...facts.notes,
    `package manager ${manager}${locks.length ? ` (${locks.join(', ')})` : ''}`,
  ];
  if (locks.length > 1)
    notes.push(`several lockfiles (${locks.join(', ')}); precedence poetry > pipenv > uv > pip`);
  const project: Project = {
    environment: 'python',
    dir: folder.dir,
    manifests: filesOf(folder, 'python'),
    dependencies: unique(facts.dependencies.map((d) => d.text)),
    packageManager: manager,
    versions,
    hasBuildConfig: locks.length > 0 || has('setup.py') || Boolean(facts.pyproject?.installable),
    workspace: Boolean(facts.pyproject?.uvWorkspace),
    setup: setupFor(manager, folder, pipArgs),
    versionCheck: (minimum) => pythonVersionCheck(python, minimum),
    checks: pythonInstalledChecks(python, checkedNames(manager, facts, pipArgs)),
    notes,
  };
  if (pipArgs) project.pipArgs = pipArgs;
  return project;
};
