import { parse as parseYaml } from 'yaml';
import type { VersionPin } from '../../../../core/environment.ts';
import { findCommands, refOf, type Evidence } from '../../detect/evidence.ts';
import {
  filesOf,
  isPlainName,
  shellWord,
  type Analyzer,
  type EvidenceRef,
  type FolderFiles,
} from '../../detect/project.ts';
import { pep508 } from '../python/parse.ts';
import { pythonInstalledChecks, pythonVersionCheck } from '../python/checks.ts';
import { pin } from '../../detect/versions.ts';

const NAMES = ['environment.yml', 'environment.yaml', 'condaenv.yaml', 'condaenv.yml'];
/** repo2docker's order: a `binder/` (or `.binder/`) folder wins over the root's files. */
const FILES = [...NAMES.map((n) => `binder/${n}`), ...NAMES.map((n) => `.binder/${n}`), ...NAMES];

/** The environment file CI or the docs create the environment from, else the first of FILES. */
function chooseFile(
  folder: FolderFiles,
  evidence: Evidence,
): { key: string; refs: EvidenceRef[] } | undefined {
  for (const c of findCommands(evidence, { tool: 'conda', kind: 'install' })) {
    const args = c.command.args;
    const at = args.findIndex((a) => a === '-f' || a === '--file');
    const named = at >= 0 ? args[at + 1] : args.find((a) => a.startsWith('--file='))?.slice(7);
    const key = named && FILES.find((k) => k === named.replace(/^\.\//, ''));
    if (key && folder.files.has(key)) return { key, refs: [refOf(c)] };
  }
  const key = FILES.find((k) => folder.files.has(k));
  return key ? { key, refs: [] } : undefined;
}
const DEFAULT_ENV_NAME = 'project-env';

export interface CondaFile {
  name: string | undefined;
  conda: string[];
  pip: string[];
}

/** A conda environment file; undefined when the YAML has no `dependencies` list (not a conda file). */
export function parseCondaFile(text: string): CondaFile | undefined {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch {
    return undefined;
  }
  const record = doc && typeof doc === 'object' ? (doc as Record<string, unknown>) : {};
  if (!Array.isArray(record.dependencies)) return undefined;
  const result: CondaFile = {
    name: typeof record.name === 'string' ? record.name : undefined,
    conda: [],
    pip: [],
  };
  for (const item of record.dependencies as unknown[]) {
    if (typeof item === 'string') result.conda.push(item.trim());
    else if (item && typeof item === 'object' && Array.isArray((item as { pip?: unknown }).pip)) {
      result.pip.push(
        ...((item as { pip: unknown[] }).pip.filter((p) => typeof p === 'string') as string[]),
      );
    }
  }
  return result;
}

/** `python=3.11`, `python>=3.10`, `python 3.11.*` → the version spec. */
function pythonSpec(conda: string[]): string | undefined {
  for (const dep of conda) {
    const match = /^(?:[\w-]+::)?python(?:\s+|(?=[=<>!~]))(.+)$/.exec(dep);
    if (match) return match[1]!.replace(/^=(?=\d)/, '==').trim();
  }
  return undefined;
}

export const analyzeConda: Analyzer = async (folder, context) => {
  const chosen = chooseFile(folder, context.evidence);
  if (!chosen) return undefined;
  const { key } = chosen;
  const parsed = parseCondaFile((await context.read(folder.files.get(key)!)) ?? '');
  if (!parsed) return undefined;
  const envName = parsed.name && /^[\w.-]+$/.test(parsed.name) ? parsed.name : DEFAULT_ENV_NAME;
  const spec = pythonSpec(parsed.conda);
  const pins = [spec ? pin('python', spec, `${key} dependencies python`) : undefined].filter(
    (p): p is VersionPin => p !== undefined,
  );
  const run = `conda run --no-capture-output -n ${envName}`;
  // conda package names are not import or distribution names; pip entries are distributions.
  const names = parsed.pip
    .map((p) => pep508(p))
    .filter((d) => d.name && !d.conditional)
    .map((d) => d.name!);
  return {
    environment: 'miniforge',
    dir: folder.dir,
    manifests: filesOf(folder, 'miniforge'),
    dependencies: [...parsed.conda, ...parsed.pip.map((p) => `pip: ${p}`)],
    packageManager: 'conda',
    versions: pins,
    hasBuildConfig: true,
    workspace: false,
    setup: [`conda env create --name ${envName} --file ${shellWord(key)}`],
    versionCheck: (minimum) => pythonVersionCheck(`${run} python`, minimum),
    checks: pythonInstalledChecks(`${run} python`, names.filter(isPlainName).slice(0, 5)),
    notes: [`conda environment ${envName} from ${key}; run commands in it with \`${run} …\``],
    runPrefix: run,
    decisions: [
      {
        topic: 'install',
        choice: `conda env create --file ${key}`,
        rule:
          chosen.refs.length > 0
            ? "the environment file the project's CI or docs create"
            : 'the environment file (binder/ first, as repo2docker reads it)',
        evidence:
          chosen.refs.length > 0
            ? chosen.refs
            : [{ file: folder.files.get(key)!, line: 0, text: key }],
      },
    ],
  };
};
