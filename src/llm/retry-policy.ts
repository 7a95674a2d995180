import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';

/**
 * What went wrong with one LLM request, and whether to try again: 5xx, 429,
 * timeouts, connection resets and malformed
 * bodies are retried; other 4xx are not. A 400 that refuses the JSON-schema
 * response format is its own class: the adapter drops the format instead.
 */
export type FailureKind =
  | 'rate_limit'
  | 'server'
  | 'timeout'
  | 'connection'
  | 'malformed'
  | 'format_refused'
  | 'client'
  | 'aborted'
  | 'unknown';

export interface Failure {
  kind: FailureKind;
  retryable: boolean;
  status: number | undefined;
  /** From `retry-after-ms` or `Retry-After` (seconds or an HTTP date). */
  retryAfterMs: number | undefined;
  message: string;
}

/** Backoff before retry n (1-based): 1 s, 2 s, 4 s, … */
export function backoffMs(retry: number): number {
  return 1000 * 2 ** (retry - 1);
}

/** The longest Retry-After honoured; longer ones are cut to this. */
export const MAX_RETRY_AFTER_MS = 120_000;

/** The model reply was not a chat completion (no choices, not JSON). */
export class MalformedReplyError extends Error {
  override readonly name = 'MalformedReplyError';
}

const RETRYABLE: ReadonlySet<FailureKind> = new Set([
  'rate_limit',
  'server',
  'timeout',
  'connection',
  'malformed',
]);

export function classifyFailure(error: unknown, nowMs: number, hadFormat: boolean): Failure {
  const kind = kindOf(error, hadFormat);
  const status = error instanceof APIError ? error.status : undefined;
  const headers = error instanceof APIError ? error.headers : undefined;
  return {
    kind,
    retryable: RETRYABLE.has(kind),
    status,
    retryAfterMs: headers ? retryAfterMs(headers, nowMs) : undefined,
    message: messageOf(error),
  };
}

function kindOf(error: unknown, hadFormat: boolean): FailureKind {
  if (error instanceof APIUserAbortError) return 'aborted';
  if (error instanceof APIConnectionTimeoutError) return 'timeout';
  if (error instanceof APIConnectionError) return 'connection';
  if (error instanceof MalformedReplyError || error instanceof SyntaxError) return 'malformed';
  if (error instanceof APIError) {
    const status = error.status ?? 0;
    if (status === 429) return 'rate_limit';
    if (status >= 500) return 'server';
    if (status === 400 && hadFormat && refusesFormat(error)) return 'format_refused';
    return 'client';
  }
  return 'unknown';
}

/** A 400 about the response format: `param: response_format`, or a message naming it. */
function refusesFormat(error: APIError): boolean {
  const body = error.error as { param?: unknown; message?: unknown } | undefined;
  if (body?.param === 'response_format') return true;
  const text = `${typeof body?.message === 'string' ? body.message : ''} ${error.message}`;
  return /response_format|json_schema|structured output/i.test(text);
}

/** Retry-After as milliseconds (capped), from `retry-after-ms` or `retry-after`. */
export function retryAfterMs(headers: Headers, nowMs: number): number | undefined {
  const ms = Number(headers.get('retry-after-ms') ?? NaN);
  if (Number.isFinite(ms) && ms >= 0) return Math.min(ms, MAX_RETRY_AFTER_MS);
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, MAX_RETRY_AFTER_MS);
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.min(Math.max(0, date - nowMs), MAX_RETRY_AFTER_MS);
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
