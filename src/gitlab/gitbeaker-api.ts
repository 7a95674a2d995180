/** The gitbeaker client type and a status test for its errors, shared by the adapter's files. */
import type { Gitlab } from '@gitbeaker/rest';
import { ExternalServiceError } from '../errors/errors.ts';

export type Api = InstanceType<typeof Gitlab<false>>;

export function isStatus(error: unknown, status: number): boolean {
  return error instanceof ExternalServiceError && error.status === status;
}
