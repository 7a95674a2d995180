import * as z from 'zod';
import { ENVIRONMENTS } from '../config/options.ts';

/** The execution environments a run can use (src/phases/environment/registry.ts declares each). */
export const EnvironmentName = z.enum(ENVIRONMENTS);
export type EnvironmentName = z.infer<typeof EnvironmentName>;

/**
 * One verification check: the command must exit 0 and its
 * stdout must equal `expected_output` exactly, after the shell adapter's one
 * normalisation (a single final newline is stripped).
 */
export const VerificationCheck = z.strictObject({
  command: z.string().trim().min(1, 'expected a non-empty command'),
  expected_output: z.string(),
});
export type VerificationCheck = z.infer<typeof VerificationCheck>;

/**
 * `selected_environment` of the planning reply.
 * Strict (no unknown keys) but every part may be missing: missing parts are
 * filled from detection by `selectEnvironment`. `name` is a
 * plain string here so that an unknown environment is reported as a fallback
 * with a reason instead of failing the whole plan.
 */
export const SelectedEnvironment = z.strictObject({
  name: z.string().trim().min(1).optional(),
  reason: z.string().optional(),
  detected_files: z.array(z.string()).optional(),
  setup_commands: z.array(z.string().trim().min(1)).optional(),
  verification: z.array(VerificationCheck).optional(),
});
export type SelectedEnvironment = z.infer<typeof SelectedEnvironment>;

/** The reply of an `environment.regenerate` call. */
export const RegenerationReply = z.strictObject({
  setup_commands: z.array(z.string().trim().min(1)).max(20),
  verification: z.array(VerificationCheck).min(1, 'expected at least one verification check'),
});
export type RegenerationReply = z.infer<typeof RegenerationReply>;

/** A language runtime version a project asks for, and where it said so. */
export interface VersionPin {
  /**
   * The runtime, as the environments name it (`python`, `node`, `java`, `go`);
   * an environment's folder declares its own (`EnvironmentKind.language`).
   */
  language: string;
  /** The text as written, e.g. `>=3.10`, `^20 || ^22`, `17`, `1.22.3`. */
  spec: string;
  /** The lowest version the spec allows (`3.10`, `20`, `17`), when it has one. */
  minimum?: string;
  /** The highest version allowed, when the source sets one (Java: maven-enforcer, the Gradle wrapper). */
  maximum?: string;
  /** File and field, e.g. `pyproject.toml [project] requires-python`. */
  source: string;
}

/** A file and line that led to a decision (line 0: the file as a whole). */
export interface EvidenceRef {
  file: string;
  line: number;
  /** The command, setting or line, as written (shortened). */
  text: string;
}

/** One decision of detection with what it rests on (docs/environment.md). */
export interface DetectionDecision {
  topic:
    | 'environment'
    | 'package_manager'
    | 'install'
    | 'build_tool'
    | 'runtime_version'
    | 'members'
    | 'test_command';
  choice: string;
  /** The rule that decided, in words. */
  rule: string;
  evidence: EvidenceRef[];
}

/** What detection found for one environment (summarised in `reasons`). */
export interface EnvironmentCandidate {
  environment: EnvironmentName;
  /** Project folders (`.` is the repository root), shallowest first. */
  projects: string[];
  dependency_count: number;
  /** A lockfile, wrapper or build configuration was found: it breaks ties in the ranking. */
  has_build_config: boolean;
  package_manager: string;
}

/** Setup and verification proposed for one environment. */
export interface EnvironmentProposal {
  setup_commands: string[];
  verification: VerificationCheck[];
  package_manager: string;
  project_dirs: string[];
  dependencies: string[];
  versions: VersionPin[];
}

/**
 * The result of `detectEnvironment` (the detected files, plus verification,
 * version pins and the reasons for the choice).
 */
export interface EnvironmentDetection {
  /** Relative path → content (size-capped; lockfiles are summarised, not shown). */
  detected_files: Record<string, string>;
  environment_type: EnvironmentName;
  dependencies: string[];
  setup_commands: string[];
  verification: VerificationCheck[];
  versions: VersionPin[];
  package_manager: string;
  project_dirs: string[];
  candidates: EnvironmentCandidate[];
  /** Setup and verification for every environment that has a project here. */
  proposals: Partial<Record<EnvironmentName, EnvironmentProposal>>;
  reasons: string[];
  /** Each decision with its evidence (file:line), strongest first. */
  decisions: DetectionDecision[];
  /** The test command the project's CI (or task runner, or docs) runs for the chosen environment. */
  test_command?: { command: string; evidence: EvidenceRef[] };
  /** CI, task-runner and docs files read as evidence. */
  evidence_files: string[];
  stats: {
    /** How the files were found: the git index of a checkout, or a folder walk. */
    source: 'git-index' | 'walk';
    /** Directory entries listed (walk) or files tracked (git index). */
    entries: number;
    truncated: boolean;
    duration_ms: number;
  };
}

/**
 * How a command runs inside the selected environment:
 * `conda run -n X --no-capture-output` for a conda environment, a
 * virtualenv's `bin` first on `PATH` for Python. src/shell/in-environment.ts
 * applies it to every later command.
 */
export interface EnvironmentRunner {
  /** Words put before `sh -c <command>`; empty: the command line runs as it is. */
  wrap: string[];
  /** Folders put first on `PATH` (absolute). */
  path: string[];
  /** Variables set for every command (e.g. `VIRTUAL_ENV`). */
  env: Record<string, string>;
  /** One sentence for the execution prompt. */
  description: string;
}

/** A test command and its repository-relative working folder. */
export interface EnvironmentTestCommand {
  command: string;
  cwd: string;
}

/**
 * The hand-off to execution: the
 * one value every later command uses — the tools' `run_command`,
 * verification, the test command and the execution prompt.
 */
export interface EnvironmentHandoff {
  environment_ready: boolean;
  environment_name: EnvironmentName;
  /** `skipped` when `environment.setup_enabled` is false. */
  setup_status: 'success' | 'failed' | 'skipped';
  errors: string[];
  /** How later commands run inside the environment; absent: as they are. */
  runner?: EnvironmentRunner;
  /** The environment's package manager (npm, pnpm, yarn, pip, poetry, uv, conda, maven, gradle, go). */
  package_manager?: string;
  /** The test command detected for this environment (Task YAML and configuration come first). */
  test_command?: EnvironmentTestCommand;
}
