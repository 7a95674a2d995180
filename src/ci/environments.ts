import type { EnvironmentName } from '../core/environment.ts';
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
 * npm/yarn/pnpm, Maven/Gradle, Go modules …). templates/agent.yml declares
 * the same settings for the one-job flow (test/ci/template.test.ts keeps
 * them equal); the two-step flow writes them into the child pipeline from here.
 */
export const ENVIRONMENT_JOBS: Readonly<Record<EnvironmentName, EnvironmentJob>> = jobsOf();

function jobsOf(): Record<EnvironmentName, EnvironmentJob> {
  const jobs = {} as Record<EnvironmentName, EnvironmentJob>;
  for (const kind of ENVIRONMENT_KINDS)
    jobs[kind.name] = {
      cachePaths: kind.job.cacheDirs.map((sub) => `${CACHE_DIR}/${sub}`),
      variables: kind.job.variables(inProject),
    };
  return jobs;
}
