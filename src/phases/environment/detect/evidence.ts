import type { EnvironmentName, EvidenceRef, VersionPin } from '../../../core/environment.ts';
import { readCiYaml, type CiVocabulary } from './ci-config.ts';
import { recognize, splitCommands, type CommandKind, type CommandRule } from './commands.ts';
import { readDocs, readTaskRunner, type MiseTools } from './docs-evidence.ts';
import type { CommandEvidence, Collector, Evidence, EvidenceSource } from './evidence-types.ts';
import { SECONDARY } from './evidence-types.ts';
import { evidenceRole } from './files.ts';
import { compareVersions, minimumVersion } from './versions.ts';

export { NO_EVIDENCE, SECONDARY } from './evidence-types.ts';
export type {
  CommandEvidence,
  Evidence,
  EvidenceSource,
  RuntimeEvidence,
} from './evidence-types.ts';

/**
 * Bounds for hostile files: no real command line is longer than this, and a
 * repository's CI and docs hold far fewer commands. Longer lines are skipped;
 * past the count, reading stops (noted once).
 */
export const MAX_LINE_CHARS = 2000;
export const MAX_EVIDENCE = 2000;
/** Real CI files and READMEs are far smaller; a YAML parse of a larger one takes seconds. */
export const MAX_FILE_CHARS = 200_000;
/** What evidence reading knows of the environments (built from the registry). */
export interface EvidenceVocabulary {
  /** The environments' tool rules, in registry order. */
  rules: readonly CommandRule[];
  /** A line without any of these words holds no command `recognize` knows: the shell parse is skipped. */
  toolWord: RegExp;
  ci: CiVocabulary;
  mise: MiseTools;
}

function collector(evidence: Evidence, vocabulary: EvidenceVocabulary): Collector {
  let order = 0;
  const full = () => {
    if (evidence.commands.length + evidence.runtimes.length < MAX_EVIDENCE) return false;
    if (!evidence.problems.some((p) => p.startsWith('evidence stopped')))
      evidence.problems.push(`evidence stopped after ${MAX_EVIDENCE} commands and set-up steps`);
    return true;
  };
  return {
    script(line, source) {
      if (line.text.length > MAX_LINE_CHARS || !vocabulary.toolWord.test(line.text) || full())
        return;
      const text = short(line.text);
      for (const words of splitCommands(line.text)) {
        const command = recognize(words, vocabulary.rules);
        if (!command || full()) continue;
        evidence.commands.push({ ...line, text, source, order: order++, command });
      }
    },
    runtime(found) {
      if (full()) return;
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
  vocabulary: EvidenceVocabulary,
): Promise<Evidence> {
  const wanted = files.filter((f) => {
    const slash = f.lastIndexOf('/');
    const dir = slash < 0 ? '' : f.slice(0, slash);
    const name = f.slice(slash + 1);
    return evidenceRole(name, dir) || (dir === '' && /^(?:\.?mise\.toml|Makefile)$/.test(name));
  });
  wanted.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  const evidence: Evidence = { commands: [], runtimes: [], files: [], problems: [] };
  const collect = collector(evidence, vocabulary);
  for (const file of wanted) {
    const text = await read(file);
    if (text === undefined) continue;
    if (text.length > MAX_FILE_CHARS) {
      evidence.problems.push(
        `${file} is too large to read as evidence (over ${MAX_FILE_CHARS} characters)`,
      );
      continue;
    }
    evidence.files.push(file);
    if (/\.ya?ml$/.test(file)) readCiYaml(file, text, collect, vocabulary.ci);
    else if (rank(file) === 3) readDocs(file, text, collect);
    else readTaskRunner(file, text, collect, vocabulary.mise);
  }
  return evidence;
}

export interface CommandQuery {
  environment?: EnvironmentName | EnvironmentName[];
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

/**
 * The lowest version CI sets up for `language` (setup-* steps, job images,
 * Travis, mise), as a pin after the project's own files: the floor the
 * maintainers test on.
 */
export function ciVersionPin(
  evidence: Evidence,
  language: VersionPin['language'],
): { pin: VersionPin; ref: EvidenceRef } | undefined {
  const found = evidence.runtimes
    .filter((r) => r.language === language && !r.secondary && r.source !== 'docs')
    .flatMap((r) => r.versions.map((version) => ({ version, r })))
    .map(({ version, r }) => ({ r, version, minimum: minimumVersion(version, language) }))
    .filter((v) => v.minimum !== undefined)
    .sort((a, b) => compareVersions(a.minimum!, b.minimum!))[0];
  if (!found) return undefined;
  const { r } = found;
  const at = r.line > 0 ? `${r.file}:${r.line}` : r.file;
  return {
    pin: { language, spec: found.version, minimum: found.minimum!, source: `${at} CI` },
    ref: refOf(r),
  };
}
