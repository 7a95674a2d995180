import type { EnvironmentName, VersionPin } from '../schema.ts';
import { readCiYaml } from './ci-config.ts';
import { recognize, splitCommands, type CommandKind, type Recognized } from './commands.ts';
import { readDocs, readTaskRunner } from './docs-evidence.ts';
import { evidenceRole } from './files.ts';
import type { EvidenceRef } from './project.ts';

/**
 * Evidence from what maintainers wrote: CI configuration (`ci`), task runners
 * and tool files (`tool`: tox, nox, Makefile, justfile, mise) and the README /
 * CONTRIBUTING (`docs`). CI is the strongest: it is what runs on every change.
 */
export type EvidenceSource = 'ci' | 'tool' | 'docs';

export interface CommandEvidence extends EvidenceRef {
  source: EvidenceSource;
  /** Job, target or section the command is in. */
  context: string;
  /** In a docs, release, lint or examples job, or a README section other than install/development. */
  secondary: boolean;
  /** Position across all evidence (CI files first, in file order). */
  order: number;
  command: Recognized;
}

export interface RuntimeEvidence extends EvidenceRef {
  language: VersionPin['language'];
  /** The environment the setting implies (a miniconda image is `miniforge`). */
  environment: EnvironmentName;
  /** Versions named (a CI matrix names several); may be empty (`setup-python` without a version). */
  versions: string[];
  source: EvidenceSource;
  secondary: boolean;
  order: number;
}

export interface Evidence {
  commands: CommandEvidence[];
  runtimes: RuntimeEvidence[];
  /** Evidence files read. */
  files: string[];
  /** Files that could not be read as what they claim to be. */
  problems: string[];
}

export const NO_EVIDENCE: Evidence = { commands: [], runtimes: [], files: [], problems: [] };

/** A job, step, target or section name that is not the main build and test. */
export const SECONDARY =
  /doc|release|publish|deploy|lint|format|style|pages|bench|example|demo|website|changelog|label|stale|codeql|security|dependabot|renovate|typos|spell|coverage-report|gh-pages|notebook|binder|sdk|translation/i;

/** One line of a script somewhere, to be split into commands. */
export interface ScriptLine {
  file: string;
  line: number;
  text: string;
  context: string;
  secondary: boolean;
}

export interface Collector {
  script(line: ScriptLine, source: EvidenceSource): void;
  runtime(found: Omit<RuntimeEvidence, 'order'>): void;
  problem(text: string): void;
}

function collector(evidence: Evidence): Collector {
  let order = 0;
  return {
    script(line, source) {
      for (const words of splitCommands(line.text)) {
        const command = recognize(words);
        if (!command) continue;
        evidence.commands.push({
          ...line,
          text: short(line.text),
          source,
          order: order++,
          command,
        });
      }
    },
    runtime(found) {
      evidence.runtimes.push({ ...found, text: short(found.text), order: order++ });
    },
    problem(text) {
      evidence.problems.push(text);
    },
  };
}

const short = (text: string) => {
  const one = text.trim().replace(/\s+/g, ' ');
  return one.length > 160 ? `${one.slice(0, 157)}…` : one;
};

/** CI first (what runs on every change), then task runners, then docs; file order within each. */
function rank(file: string): number {
  const name = file.slice(file.lastIndexOf('/') + 1);
  const role = evidenceRole(name, file.includes('/') ? file.slice(0, file.lastIndexOf('/')) : '');
  if (role === 'docs') return 3;
  if (['tox.ini', 'noxfile.py', 'Makefile', 'justfile', 'Justfile', '.justfile'].includes(file))
    return 2;
  if (file.endsWith('mise.toml')) return 2;
  // test workflows before the others
  return SECONDARY.test(name) ? 1 : 0;
}

/** Reads the evidence files among `files` (repository paths) through `read`. */
export async function gatherEvidence(
  files: string[],
  read: (rel: string) => Promise<string | undefined>,
): Promise<Evidence> {
  const wanted = files.filter((f) => {
    const slash = f.lastIndexOf('/');
    const dir = slash < 0 ? '' : f.slice(0, slash);
    const name = f.slice(slash + 1);
    return evidenceRole(name, dir) || (dir === '' && /^(?:\.?mise\.toml|Makefile)$/.test(name));
  });
  wanted.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  const evidence: Evidence = { commands: [], runtimes: [], files: [], problems: [] };
  const collect = collector(evidence);
  for (const file of wanted) {
    const text = await read(file);
    if (text === undefined) continue;
    evidence.files.push(file);
    if (/\.ya?ml$/.test(file)) readCiYaml(file, text, collect);
    else if (rank(file) === 3) readDocs(file, text, collect);
    else readTaskRunner(file, text, collect);
  }
  return evidence;
}

export interface CommandQuery {
  environment?: EnvironmentName;
  tool?: string | string[];
  kind?: CommandKind | CommandKind[];
  source?: EvidenceSource | EvidenceSource[];
  /** Include commands of docs/release/lint jobs (default false). */
  secondary?: boolean;
}

const matches = <T>(want: T | T[] | undefined, value: T) =>
  want === undefined || (Array.isArray(want) ? want.includes(value) : want === value);

/** Commands matching the query, strongest first: CI, then task runners, then docs; main jobs before secondary ones. */
export function findCommands(evidence: Evidence, query: CommandQuery): CommandEvidence[] {
  const strength = (c: CommandEvidence) =>
    ['ci', 'tool', 'docs'].indexOf(c.source) * 2 + Number(c.secondary);
  return evidence.commands
    .filter(
      (c) =>
        matches(query.environment, c.command.environment as EnvironmentName) &&
        matches(query.tool, c.command.tool) &&
        matches(query.kind, c.command.kind) &&
        matches(query.source, c.source) &&
        (query.secondary || !c.secondary),
    )
    .sort((a, b) => strength(a) - strength(b) || a.order - b.order);
}

export const refOf = (e: EvidenceRef): EvidenceRef => ({
  file: e.file,
  line: e.line,
  text: e.text,
});
