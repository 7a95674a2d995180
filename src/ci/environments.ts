import type { ENVIRONMENTS } from '../config/options.ts';

export type EnvironmentName = (typeof ENVIRONMENTS)[number];

/** Dependency caches live here, inside the project folder (GitLab caches only paths below it). */
export const CACHE_DIR = '.mr-agent-cache';

/** What a job of one environment needs besides its image (B3). */
export interface EnvironmentJob {
  /** Folders GitLab's `cache:` keeps between pipelines, relative to the project folder. */
  cachePaths: readonly string[];
  /** Variables that point the package managers at those folders. */
  variables: Readonly<Record<string, string>>;
}

const dir = (sub: string) => `${CACHE_DIR}/${sub}`;
const inProject = (sub: string) => `$CI_PROJECT_DIR/${dir(sub)}`;

/**
 * Per environment: pip/uv/poetry, conda, npm/yarn/pnpm, Maven/Gradle, Go modules.
 * templates/agent.yml declares the same settings for the one-job flow
 * (a test keeps them equal); the two-step flow writes them into the child
 * pipeline from here.
 */
export const ENVIRONMENT_JOBS: Readonly<Record<EnvironmentName, EnvironmentJob>> = {
  python: {
    cachePaths: [dir('pip'), dir('uv'), dir('poetry')],
    variables: {
      PIP_CACHE_DIR: inProject('pip'),
      UV_CACHE_DIR: inProject('uv'),
      POETRY_CACHE_DIR: inProject('poetry'),
    },
  },
  miniforge: {
    cachePaths: [dir('conda/pkgs'), dir('pip')],
    variables: { CONDA_PKGS_DIRS: inProject('conda/pkgs'), PIP_CACHE_DIR: inProject('pip') },
  },
  node: {
    cachePaths: [dir('npm'), dir('yarn'), dir('pnpm')],
    variables: {
      npm_config_cache: inProject('npm'),
      YARN_CACHE_FOLDER: inProject('yarn'),
      npm_config_store_dir: inProject('pnpm'),
    },
  },
  java: {
    cachePaths: [dir('maven'), dir('gradle')],
    variables: {
      MAVEN_OPTS: `-Dmaven.repo.local=${inProject('maven')}`,
      GRADLE_USER_HOME: inProject('gradle'),
    },
  },
  go: {
    cachePaths: [dir('go/mod'), dir('go/build')],
    variables: { GOMODCACHE: inProject('go/mod'), GOCACHE: inProject('go/build') },
  },
};
