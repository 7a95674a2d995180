import type { EnvironmentName } from '../core/environment.ts';
import type { EnvironmentKind } from '../phases/environment/kinds/kind.ts';
import { ENVIRONMENT_KINDS } from '../phases/environment/registry.ts';
import { CACHE_DIR } from './cache-dir.ts';

export type { EnvironmentName } from '../core/environment.ts';

export { CACHE_DIR } from './cache-dir.ts';

/** What a job of one environment needs besides its image: its dependency caches. */
export interface EnvironmentJob {
  /** Folders GitLab's `cache:` keeps between pipelines, relative to the project folder. */
  cachePaths: readonly string[];
  /** Variables that point the package managers at those folders. */
  variables: Readonly<Record<string, string>>;
}

const inProject = (sub: string) => `$CI_PROJECT_DIR/${CACHE_DIR}/${sub}`;

/**
 * Per environment, from its folder's `job` (pip/uv/poetry, conda,
 * npm/yarn/pnpm, Maven/Gradle, Go modules …). The one-job flow's hidden jobs
 * in templates/agent.yml are written from the same settings
 * (`generated-environments.ts`); the two-step flow writes them into the child
 * pipeline from here.
 */
export const ENVIRONMENT_JOBS: Readonly<Record<EnvironmentName, EnvironmentJob>> =
  Object.fromEntries(ENVIRONMENT_KINDS.map((kind) => [kind.name, environmentJob(kind)])) as Record<
    EnvironmentName,
    EnvironmentJob
  >;

/** The job settings of one environment, from its folder's `job`. */
export function environmentJob(kind: EnvironmentKind): EnvironmentJob {
  return {
    cachePaths: kind.job.cacheDirs.map((sub) => `${CACHE_DIR}/${sub}`),
    variables: kind.job.variables(inProject),
  };
}
