import type { EnvironmentName, EvidenceRef, VersionPin } from '../../../core/environment.ts';
import type { Recognized } from './commands.ts';

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
  /** Files the set-up step reads (setup-miniconda's `environment-file`). */
  files?: string[];
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
