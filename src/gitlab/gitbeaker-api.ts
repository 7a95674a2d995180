/** The gitbeaker client type and a status test for its errors, shared by the adapter's files. */
import {
  IssueAwardEmojis,
  IssueDiscussions,
  IssueNoteAwardEmojis,
  IssueNotes,
  Issues,
  JobArtifacts,
  Jobs,
  MergeRequestAwardEmojis,
  MergeRequestDiscussions,
  MergeRequestNoteAwardEmojis,
  MergeRequestNotes,
  MergeRequests,
  PersonalAccessTokens,
  PipelineTriggerTokens,
  Pipelines,
  ProjectMembers,
  Projects,
  ProtectedBranches,
  RepositoryFiles,
  Users,
  type Gitlab,
} from '@gitbeaker/core';
import { ExternalServiceError } from '../errors/errors.ts';

/**
 * The gitbeaker resources the adapter uses, imported by name from
 * `@gitbeaker/core` so the bundle carries these and not the ~200 others
 * (`@gitbeaker/rest` imports them all to preset its own requester; the
 * adapter always plugs in its own, requester.ts).
 */
const USED = {
  IssueAwardEmojis,
  IssueDiscussions,
  IssueNoteAwardEmojis,
  IssueNotes,
  Issues,
  JobArtifacts,
  Jobs,
  MergeRequestAwardEmojis,
  MergeRequestDiscussions,
  MergeRequestNoteAwardEmojis,
  MergeRequestNotes,
  MergeRequests,
  PersonalAccessTokens,
  PipelineTriggerTokens,
  Pipelines,
  ProjectMembers,
  Projects,
  ProtectedBranches,
  RepositoryFiles,
  Users,
};

type Client = InstanceType<typeof Gitlab<false>>;
export type Api = Pick<Client, keyof typeof USED>;
export type ApiOptions = ConstructorParameters<typeof Gitlab<false>>[0];

/**
 * The client, each resource built when first used. `new Gitlab()` builds
 * all of gitbeaker's ~200 resources, each with its own set of rate
 * limiters: a few hundred milliseconds at the start of every job, for the
 * dozen a job uses. Each resource keeps gitbeaker's limits.
 */
export function gitbeakerApi(options: ApiOptions): Api {
  const api = {} as Record<keyof typeof USED, unknown>;
  for (const [name, Resource] of Object.entries(USED) as [
    keyof typeof USED,
    new (options: ApiOptions) => unknown,
  ][]) {
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
