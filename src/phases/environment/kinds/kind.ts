/**
 * What an execution environment plugs into the shared machinery: one value
 * per environment, declared in its folder (`kinds/<name>/kind.ts`) and listed
 * once in `src/phases/environment/registry.ts`. Detection, selection, setup,
 * the runner, the test command and the CI job read these fields; none of
 * them names an environment. docs/architecture.md, "Add an environment",
 * walks through a new one.
 */
import type { EnvironmentName, EnvironmentRunner, VersionPin } from '../../../core/environment.ts';
import type { CiVocabulary } from '../detect/ci-config.ts';
import type { CommandRule } from '../detect/commands.ts';
import type { DecisionKind } from '../detect/decide.ts';
import type { FileSpec } from '../detect/files.ts';
import type { Analyzer } from '../detect/project.ts';
import type { Signature } from './signature.ts';

/** A runtime language as version pins name it. */
export type Language = VersionPin['language'];

/** What CI configuration says about an environment (see `detect/ci-config.ts`). */
export interface KindCi {
  /** GitHub Actions that set the runtime up, and the `with:` keys naming its version. */
  setupActions?: readonly Omit<CiVocabulary['setupActions'][number], 'environment'>[];
  /** A job image of this environment (`python:3.11`), and the version it names. */
  image?: CiVocabulary['images'][number]['match'];
  /** Travis CI's key for the runtime (`node_js`, `jdk`). */
  travisKey?: string;
}

/** A test command guessed from a folder's build files (undefined: none). */
export type TestDetector = (dir: string) => Promise<string | undefined>;

/** What the setup did, as the runner is derived from it. */
export interface RunnerInput {
  name: EnvironmentName;
  setupStatus: 'success' | 'failed' | 'skipped';
  /** The setup commands of the last round (after regenerations). */
  setupCommands: readonly string[];
  /** The verification commands of the last round. */
  checkCommands: readonly string[];
  repoDir: string;
  /** Repository-relative folders of the environment's projects. */
  projectDirs: readonly string[];
}

/** Install-failure signatures of the environment's tools, by the table they belong to (see `signatures.ts`). */
export interface KindSignatures {
  fatal?: readonly Signature[];
  overrides?: readonly Signature[];
  retryable?: readonly Signature[];
  fixable?: readonly Signature[];
}

/** The GitLab job of the environment: its image and the dependency caches kept between pipelines. */
export interface KindJob {
  /** The description of the component template's `image_<name>` input; absent: "Image for the `<name>` environment." */
  imageDescription?: string;
  /** Cache folders below the cache root (`pip`, `go/mod`), kept by GitLab's `cache:`. */
  cacheDirs: readonly string[];
  /** Variables pointing the package managers at them, given a cache folder's absolute path. */
  variables: (folder: (sub: string) => string) => Readonly<Record<string, string>>;
}

/** How the planning prompt presents the environment (prompts/planning.md). */
export interface KindPlanner {
  /** What the environment offers, after its name in the list of environments. */
  description: string;
  /** The files that select it, in the selection criteria (`` `go.mod` ``). */
  selectedBy: string;
}

export interface EnvironmentKind<N extends EnvironmentName = EnvironmentName> extends DecisionKind {
  name: N;
  /** The runtime whose version pins and CI evidence count for it (miniforge runs Python). */
  language: Language;
  /** The files of the environment; `environment` is the kind's name. */
  files: Omit<FileSpec, 'environment'>;
  /** Finds a project of this environment in one folder. */
  analyze: Analyzer;
  /** Recognises the environment's tools in CI, task-runner and docs commands. */
  commands: readonly CommandRule[];
  /** Words (regular-expression source) whose presence means a line may hold one of those tools. */
  toolWords: readonly string[];
  /** Names of the runtime in `.tool-versions` and `mise.toml`. */
  toolNames?: readonly string[];
  ci?: KindCi;
  planner: KindPlanner;
  /** Names models use for it (`golang`, `conda`). */
  aliases: readonly string[];
  /** Test-command guesses from build files, first match wins. */
  testDetectors: (packageManager: string | undefined) => readonly TestDetector[];
  /** Rank among all environments' guesses when no environment is selected (lower first). */
  testGuessRank: number;
  /** How later commands run inside the environment; absent: as they are. */
  runner?: (input: RunnerInput) => Promise<EnvironmentRunner | undefined>;
  signatures?: KindSignatures;
  /**
   * The hosts the environment's package managers are configured to fetch
   * from (registries and mirrors, from the variables and the project's own
   * settings files in `dir`): a name lookup that fails for one of them is the
   * network, one that fails for any other host is a dependency fetched from
   * a host the runner cannot reach (`fetch-hosts.ts`).
   */
  registryHosts?: (
    env: Readonly<Record<string, string | undefined>>,
    dir: string | undefined,
  ) => string[];
  job: KindJob;
}
