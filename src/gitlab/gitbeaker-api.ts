/** The gitbeaker client type and a status test for its errors, shared by the adapter's files. */
import * as Resources from '@gitbeaker/rest';
import type { Gitlab } from '@gitbeaker/rest';
import { ExternalServiceError } from '../errors/errors.ts';

/** The gitbeaker resources the adapter uses. */
const USED = [
  'IssueAwardEmojis',
  'IssueDiscussions',
  'IssueNoteAwardEmojis',
  'IssueNotes',
  'Issues',
  'JobArtifacts',
  'Jobs',
  'MergeRequestAwardEmojis',
  'MergeRequestDiscussions',
  'MergeRequestNoteAwardEmojis',
  'MergeRequestNotes',
  'MergeRequests',
  'PersonalAccessTokens',
  'PipelineTriggerTokens',
  'Pipelines',
  'ProjectMembers',
  'Projects',
  'ProtectedBranches',
  'RepositoryFiles',
  'Users',
] as const;

type Client = InstanceType<typeof Gitlab<false>>;
export type Api = Pick<Client, (typeof USED)[number]>;
export type ApiOptions = ConstructorParameters<typeof Gitlab<false>>[0];

/**
 * The client, each resource built when first used. `new Gitlab()` builds
 * all of gitbeaker's ~200 resources, each with its own set of rate
 * limiters: a few hundred milliseconds at the start of every job, for the
 * dozen a job uses. Each resource keeps gitbeaker's limits.
 */
export function gitbeakerApi(options: ApiOptions): Api {
  const api = {} as Record<(typeof USED)[number], unknown>;
  for (const name of USED) {
    const Resource = Resources[name] as unknown as new (options: ApiOptions) => unknown;
    let made: unknown;
    Object.defineProperty(api, name, {
      get: () => (made ??= new Resource(options)),
      enumerable: true,
    });
  }
  return api as Api;
}

export function isStatus(error: unknown, status: number): boolean {
  return error instanceof ExternalServiceError && error.status === status;
}
