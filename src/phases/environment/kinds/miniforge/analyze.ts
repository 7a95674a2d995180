import { parse as parseYaml } from 'yaml';
import type { VersionPin } from '../../../../core/environment.ts';
import { findCommands, refOf, type Evidence } from '../../detect/evidence.ts';
import {
  filesOf,
  isPlainName,
  shellWord,
  type AnalyzeContext,
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

const BINDER = /^\.?binder\//;

/** Environment files CI's set-up steps and conda commands name, strongest first (repository paths). */
function namedFiles(evidence: Evidence): { file: string; ref: EvidenceRef }[] {
  const named: { file: string; ref: EvidenceRef; order: number }[] = [];
  for (const r of evidence.runtimes)
    if (r.environment === 'miniforge' && r.source === 'ci')
      for (const file of r.files ?? []) named.push({ file, ref: refOf(r), order: r.order });
  for (const c of findCommands(evidence, { tool: 'conda', kind: 'install' })) {
    const args = c.command.args;
    const at = args.findIndex((a) => a === '-f' || a === '--file');
    const file = at >= 0 ? args[at + 1] : args.find((a) => a.startsWith('--file='))?.slice(7);
    if (file) named.push({ file, ref: refOf(c), order: c.order });
  }
  // CI before the docs, then the order they were found in
  const rank = (ref: EvidenceRef, order: number) =>
    (evidence.commands.some((c) => c.source === 'docs' && c.file === ref.file) ? 1e6 : 0) + order;
  return named
    .sort((a, b) => rank(a.ref, a.order) - rank(b.ref, b.order))
    .map(({ file, ref }) => ({ file: file.replace(/^\.\//, ''), ref }));
}

/**
 * The environment file CI or the docs create the environment from (any
 * path, `ci/environment.yml` too), else the first of FILES. A file CI names
 * outranks binder's, which describes the notebook runtime of a demo.
 */
async function chooseFile(
  folder: FolderFiles,
  context: AnalyzeContext,
): Promise<{ key: string; rel: string; refs: EvidenceRef[] } | undefined> {
  const own = FILES.find((k) => folder.files.has(k));
  if (!own) return undefined;
  const prefix = folder.dir === '.' ? '' : `${folder.dir}/`;
  for (const { file, ref } of namedFiles(context.evidence)) {
    const key = prefix && file.startsWith(prefix) ? file.slice(prefix.length) : file;
    if (folder.files.has(key)) return { key, rel: folder.files.get(key)!, refs: [ref] };
    // a file outside the folder's own names (ci/environment.yml) describes the root
    if (folder.dir === '.' && /\.ya?ml$/.test(file) && (await context.read(file)) !== undefined)
      return { key: file, rel: file, refs: [ref] };
  }
  return { key: own, rel: folder.files.get(own)!, refs: [] };
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
  const chosen = await chooseFile(folder, context);
  if (!chosen) return undefined;
  const { key } = chosen;
  const parsed = parseCondaFile((await context.read(chosen.rel)) ?? '');
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
    ...(BINDER.test(key) && chosen.refs.length === 0 ? { binderOnly: true } : {}),
    decisions: [
      {
        topic: 'install',
        choice: `conda env create --file ${key}`,
        rule:
          chosen.refs.length > 0
            ? "the environment file the project's CI or docs create"
            : 'the environment file (binder/ first, as repo2docker reads it)',
        evidence: chosen.refs.length > 0 ? chosen.refs : [{ file: chosen.rel, line: 0, text: key }],
      },
    ],
  };
};
