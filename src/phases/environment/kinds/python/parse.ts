import { parse as parseToml } from 'smol-toml';

/** One declared Python dependency. */
export interface PyDependency {
  /** Distribution name, when the line names one (not for paths and bare URLs). */
  name: string | undefined;
  /** The requirement as declared, e.g. `flask>=3.0`, `requests (^2.31)`. */
  text: string;
  /** Installed only on some platforms/Pythons (`; python_version < "3.11"`). */
  conditional: boolean;
}

export interface RequirementsFile {
  dependencies: PyDependency[];
  /** `-r other.txt` includes, relative to the file. */
  includes: string[];
  /** An editable or local install of the project itself (`-e .`, `.`). */
  installsProject: boolean;
}

const NAME = /^([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(?:\[[^\]]*\])?/;

/** Parses a PEP 508 requirement string. */
export function pep508(text: string): PyDependency {
  const trimmed = text.trim();
  const match = NAME.exec(trimmed);
  const looksLikePath = /^[./~]|:\/\//.test(trimmed);
  return {
    name: match && !looksLikePath ? match[1] : undefined,
    text: trimmed,
    conditional: trimmed.includes(';'),
  };
}

/** pip requirements format: comments, continuations, options, includes, editable installs. */
export function parseRequirements(text: string): RequirementsFile {
  const result: RequirementsFile = { dependencies: [], includes: [], installsProject: false };
  const lines = text.replace(/\\\r?\n/g, ' ').split(/\r?\n/);
  for (const raw of lines) {
    const line = raw.replace(/(^|\s)#.*$/, '').trim();
    if (!line) continue;
    const include = /^(?:-r|--requirement)[\s=]+(\S+)/.exec(line);
    if (include) {
      result.includes.push(include[1]!);
      continue;
    }
    const editable = /^(?:-e|--editable)[\s=]+(\S+)/.exec(line);
    const target = editable ? editable[1]! : line;
    if (/^\.(?:\[.*\])?$|^\.\//.test(target)) {
      result.installsProject = true;
      continue;
    }
    if (line.startsWith('-')) continue; // --index-url, -c constraints, --hash …
    const egg = /#egg=([\w.-]+)/.exec(raw);
    const dependency = pep508(target);
    result.dependencies.push(egg ? { ...dependency, name: egg[1] } : dependency);
  }
  return result;
}

export interface Pyproject {
  name: string | undefined;
  dependencies: PyDependency[];
  requiresPython: string | undefined;
  /** Keys of `[project.optional-dependencies]`. */
  extras: string[];
  /** Keys of PEP 735 `[dependency-groups]`. */
  groups: string[];
  /** Poetry's `[tool.poetry.group.*]` with their `optional` flag. */
  poetryGroups: { name: string; optional: boolean }[];
  /** `[tool.pdm]` is present. */
  pdm: boolean;
  /** `[build-system]` names a build backend: a package others install. */
  buildBackend: string | undefined;
  poetry: boolean;
  poetryPython: string | undefined;
  poetryPackageMode: boolean;
  uvWorkspace: boolean;
  uvMembers: unknown;
  uvExclude: unknown;
  /** Has `[project]` or `[build-system]`: `pip install .` can install it. */
  installable: boolean;
  /** Has anything that makes it a Python project (not just tool settings). */
  isProject: boolean;
}

type Table = Record<string, unknown>;
const table = (value: unknown): Table =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Table) : {};
const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];

function poetrySpec(name: string, spec: unknown): PyDependency {
  const version =
    typeof spec === 'string' ? spec : ((table(spec).version as string | undefined) ?? '');
  // markers, or an optional (extra-only) dependency: not always installed
  const conditional = Boolean(table(spec).markers) || table(spec).optional === true;
  return { name, text: version ? `${name} (${version})` : name, conditional };
}

function poetryDependencies(poetry: Table): PyDependency[] {
  const groups = [table(poetry.dependencies), table(poetry['dev-dependencies'])];
  for (const group of Object.values(table(poetry.group)))
    groups.push(table(table(group).dependencies));
  const found: PyDependency[] = [];
  for (const deps of groups) {
    for (const [name, spec] of Object.entries(deps)) {
      if (name.toLowerCase() !== 'python') found.push(poetrySpec(name, spec));
    }
  }
  return found;
}

/** PEP 621 `[project]`, PEP 735 `[dependency-groups]` and Poetry's `[tool.poetry]`. Throws on bad TOML. */
export function parsePyproject(text: string): Pyproject {
  const doc = parseToml(text) as Table;
  const project = table(doc.project);
  const tool = table(doc.tool);
  const poetry = table(tool.poetry);
  const hasPoetry = Object.keys(poetry).length > 0;
  const optional = table(project['optional-dependencies']);
  const groups = Object.values(table(doc['dependency-groups'])).flatMap(strings);
  const dependencies = [
    ...strings(project.dependencies),
    ...Object.values(optional).flatMap(strings),
    ...groups,
  ].map(pep508);
  dependencies.push(...poetryDependencies(poetry));
  const buildSystem = Object.keys(table(doc['build-system'])).length > 0;
  const hasProject = Object.keys(project).length > 0;
  return {
    name: (project.name as string | undefined) ?? (poetry.name as string | undefined),
    dependencies,
    requiresPython: project['requires-python'] as string | undefined,
    extras: Object.keys(optional),
    groups: Object.keys(table(doc['dependency-groups'])),
    poetryGroups: Object.entries(table(poetry.group)).map(([name, group]) => ({
      name,
      optional: table(group).optional === true,
    })),
    pdm: Object.keys(table(tool.pdm)).length > 0,
    buildBackend: table(doc['build-system'])['build-backend'] as string | undefined,
    poetry: hasPoetry,
    poetryPython: table(poetry.dependencies).python as string | undefined,
    poetryPackageMode: poetry['package-mode'] !== false,
    uvWorkspace: Object.keys(table(table(tool.uv).workspace)).length > 0,
    uvMembers: table(table(tool.uv).workspace).members,
    uvExclude: table(table(tool.uv).workspace).exclude,
    installable: hasProject || buildSystem,
    isProject: hasProject || buildSystem || hasPoetry || groups.length > 0,
  };
}

/** `Pipfile`: `[packages]`, `[dev-packages]`, `[requires] python_version`. Throws on bad TOML. */
export function parsePipfile(text: string): { dependencies: PyDependency[]; python?: string } {
  const doc = parseToml(text) as Table;
  const dependencies: PyDependency[] = [];
  for (const section of ['packages', 'dev-packages']) {
    for (const [name, spec] of Object.entries(table(doc[section]))) {
      dependencies.push(poetrySpec(name, spec === '*' ? '' : spec));
    }
  }
  const requires = table(doc.requires);
  const python = (requires.python_full_version ?? requires.python_version) as string | undefined;
  return python ? { dependencies, python } : { dependencies };
}

/** `setup.py`, read without running it: `install_requires=[...]`, `python_requires=...`. */
export function parseSetupPy(text: string): { dependencies: PyDependency[]; python?: string } {
  const list = /install_requires\s*=\s*\[([^\]]*)\]/s.exec(text);
  const dependencies = list
    ? [...list[1]!.matchAll(/["']([^"']+)["']/g)].map((m) => pep508(m[1]!))
    : [];
  const python = /python_requires\s*=\s*["']([^"']+)["']/.exec(text)?.[1];
  return python ? { dependencies, python } : { dependencies };
}

/** `setup.cfg` `[options]` `install_requires` (indented list) and `python_requires`. */
export function parseSetupCfg(text: string): { dependencies: PyDependency[]; python?: string } {
  const options = /^\[options\]\s*$([\s\S]*?)(?=^\[|$(?![\s\S]))/m.exec(text)?.[1] ?? '';
  const block = /^install_requires\s*=\s*(.*(?:\n[ \t]+.*)*)/m.exec(options)?.[1] ?? '';
  const dependencies = block
    .split('\n')
    .map((l) => l.replace(/#.*$/, '').trim())
    .filter(Boolean)
    .map(pep508);
  const python = /^python_requires\s*=\s*(.+)$/m.exec(options)?.[1]?.trim();
  return python ? { dependencies, python } : { dependencies };
}
