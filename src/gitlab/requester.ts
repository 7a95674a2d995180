/**
 * The HTTP transport under gitbeaker (its `requesterFn` plug-in point): one
 * exchange per attempt over Node's `http`/`https` (http-exchange.ts), retries (docs/gitlab.md) — 429 waits for `Retry-After`;
 * for idempotent methods (GET, HEAD, PUT, DELETE) 5xx and timeouts back off
 * exponentially; a POST is repeated only when it surely never reached GitLab
 * (429, connection refused, unknown host). A POST whose answer is lost (a 5xx,
 * a timeout, a reset) may have been carried out: it fails here, and the port
 * checks whether it landed before sending it again (checked-write.ts). All
 * waiting goes through the injected Clock. Every failure leaves as an
 * `ExternalServiceError` carrying the HTTP status and GitLab's own message;
 * URLs in messages never carry their query string (the trigger API sends its
 * token there).
 */
import {
  defaultOptionsHandler,
  type DefaultRequestOptions,
  type FormattedResponse,
  type RequesterType,
  type ResourceOptions,
} from '@gitbeaker/requester-utils';
import { decamelizeKeys } from 'xcase';
import { ExternalServiceError, type HintKey } from '../errors/errors.ts';
import type { Logger } from '../log/logger.ts';
import type { Clock } from '../core/clock.ts';
import { exchange, type HttpAnswer } from './http-exchange.ts';

export interface RetryPolicy {
  /** Retries after the first attempt (default 4). */
  maxRetries: number;
  /** First back-off delay; doubles each retry (default 1000 ms). */
  baseDelayMs: number;
  /** Longest back-off delay (default 30 s). */
  maxDelayMs: number;
  /** A `Retry-After` longer than this is not waited for (default 120 s). */
  maxRetryAfterMs: number;
  /** Time limit of one attempt (default 30 s). */
  timeoutMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 4,
  baseDelayMs: 1000,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 120_000,
  timeoutMs: 30_000,
};

export interface RequestRecord {
  method: string;
  /** Path without query string, e.g. `/api/v4/projects/1/merge_requests/2/notes`. */
  path: string;
  status: number | undefined;
  attempt: number;
  durationMs: number;
}

export interface RequesterDeps {
  clock: Clock;
  logger?: Logger | undefined;
  policy?: Partial<RetryPolicy> | undefined;
  /** Called after every attempt (metrics, tests). */
  onAttempt?: ((record: RequestRecord) => void) | undefined;
}

const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE']);
/** Connection failures where the request surely never reached GitLab (safe to repeat a POST). */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

/** A connection failure that surely never reached GitLab (safe to repeat a POST). */
export function neverSent(error: unknown): boolean {
  const failure = error as { code?: unknown; cause?: { code?: unknown } } | undefined;
  const code = failure?.code ?? failure?.cause?.code;
  return typeof code === 'string' && NOT_SENT.has(code);
}
const SERVICE = 'GitLab';

/** Seconds or an HTTP date → milliseconds to wait; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, nowMs: number): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value.trim());
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

async function readBody(response: HttpAnswer, asStream: boolean): Promise<FormattedResponse> {
  const headers = response.headers;
  if (asStream)
    return { body: response.stream() as ReadableStream, headers, status: response.status };
  if (response.status === 204) {
    response.discard();
    return { body: null, headers, status: response.status };
  }
  const type = (response.header('content-type') ?? '').split(';')[0]!.trim();
  let body: FormattedResponse['body'];
  if (type === 'application/json')
    body = ((await response.json()) as Record<string, unknown>) ?? {};
  else if (type.startsWith('text/')) body = await response.text();
  else body = await response.blob();
  return { body, headers, status: response.status };
}

/** GitLab's error text: `message` (string or field map) or OAuth `error_description`. */
export function gitlabErrorMessage(text: string): string {
  try {
    const parsed = JSON.parse(text) as Record<string, unknown>;
    const message = parsed.message ?? parsed.error_description ?? parsed.error;
    if (typeof message === 'string') return message;
    if (message !== undefined) return JSON.stringify(message);
  } catch {
    // not JSON: fall through to the raw text
  }
  return text.slice(0, 300);
}

interface Attempt {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body: string | Uint8Array | undefined;
  asStream: boolean;
  signal: AbortSignal | undefined;
}

class RetryingHandler {
  private readonly policy: RetryPolicy;
  constructor(private readonly deps: RequesterDeps) {
    this.policy = { ...DEFAULT_RETRY_POLICY, ...deps.policy };
  }

  async handle(
    endpoint: string,
    options: Record<string, unknown> = {},
  ): Promise<FormattedResponse> {
    const { prefixUrl, searchParams, method, asStream, signal, headers, body } = options as {
      prefixUrl?: string;
      searchParams?: string;
      method?: string;
      asStream?: boolean;
      signal?: AbortSignal;
      headers?: Record<string, string>;
      body?: string | FormData;
    };
    const base = prefixUrl && !prefixUrl.endsWith('/') ? `${prefixUrl}/` : prefixUrl;
    const url = new URL(endpoint, base);
    url.search = searchParams ?? '';
    const verb = (method ?? 'GET').toUpperCase();
    const attempt: Attempt = {
      method: verb,
      url,
      headers: { ...headers },
      body: undefined,
      asStream: asStream === true,
      signal,
    };
    if (typeof body === 'string') attempt.body = body;
    else if (body !== undefined) await encodeForm(attempt, body);
    return this.run(attempt);
  }

  private async run(a: Attempt): Promise<FormattedResponse> {
    const path = a.url.pathname;
    for (let attempt = 0; ; attempt++) {
      const started = this.deps.clock.now();
      const last = attempt >= this.policy.maxRetries;
      let response: HttpAnswer;
      try {
        response = await this.fetchOnce(a);
      } catch (error) {
        this.record(a.method, path, undefined, attempt, started);
        if (a.signal?.aborted) throw error;
        const retryable = IDEMPOTENT.has(a.method) || neverSent(error);
        if (last || !retryable) throw this.networkError(a, error, attempt);
        await this.wait(a, path, attempt, this.backoff(attempt), 'network error');
        continue;
      }
      this.record(a.method, path, response.status, attempt, started);
      if (response.ok) return readBody(response, a.asStream);
      // a 5xx to a POST may come after GitLab carried it out: never repeated here (checked-write.ts)
      const retryable =
        response.status === 429 || (response.status >= 500 && IDEMPOTENT.has(a.method));
      if (!retryable || last) throw await this.statusError(a, response, attempt);
      const waitMs = this.waitFor(response, attempt);
      if (waitMs === undefined) throw await this.statusError(a, response, attempt);
      response.discard();
      await this.wait(a, path, attempt, waitMs, `HTTP ${response.status}`);
    }
  }

  private async fetchOnce(a: Attempt): Promise<HttpAnswer> {
    const timeout = AbortSignal.timeout(this.policy.timeoutMs);
    const signal = a.signal ? AbortSignal.any([a.signal, timeout]) : timeout;
    try {
      return await exchange({
        method: a.method,
        url: a.url,
        headers: a.headers,
        body: a.body,
        signal,
      });
    } catch (error) {
      if (timeout.aborted && !a.signal?.aborted)
        throw Object.assign(new Error(`no answer within ${this.policy.timeoutMs} ms`), {
          name: 'TimeoutError',
          cause: error,
        });
      throw error;
    }
  }

  /** Delay before the next attempt, or undefined when a Retry-After is too long to wait. */
  private waitFor(response: HttpAnswer, attempt: number): number | undefined {
    if (response.status !== 429) return this.backoff(attempt);
    const retryAfter = parseRetryAfter(response.header('retry-after'), this.deps.clock.now());
    if (retryAfter === undefined) return this.backoff(attempt);
    return retryAfter > this.policy.maxRetryAfterMs ? undefined : retryAfter;
  }

  private backoff(attempt: number): number {
    return Math.min(this.policy.maxDelayMs, this.policy.baseDelayMs * 2 ** attempt);
  }

  private async wait(a: Attempt, path: string, attempt: number, waitMs: number, reason: string) {
    this.deps.logger?.warn('GitLab request retried', {
      method: a.method,
      path,
      reason,
      attempt: attempt + 1,
      waitMs,
    });
    await this.deps.clock.sleep(waitMs, a.signal);
  }

  private record(
    method: string,
    path: string,
    status: number | undefined,
    attempt: number,
    started: number,
  ) {
    this.deps.onAttempt?.({
      method,
      path,
      status,
      attempt,
      durationMs: this.deps.clock.now() - started,
    });
  }

  private networkError(a: Attempt, error: unknown, attempt: number): ExternalServiceError {
    const timedOut = (error as Error).name === 'TimeoutError';
    const what = timedOut
      ? `no answer within ${this.policy.timeoutMs} ms`
      : `network error: ${(error as Error).message}`;
    return new ExternalServiceError(
      SERVICE,
      `${a.method} ${a.url.pathname} failed after ${attempt + 1} attempt(s): ${what}`,
      { where: a.url.origin, cause: error },
    );
  }

  private async statusError(a: Attempt, response: HttpAnswer, attempt: number) {
    const text = await response.text().catch(() => '');
    const detail = gitlabErrorMessage(text);
    const tries = attempt > 0 ? ` after ${attempt + 1} attempts` : '';
    return new ExternalServiceError(
      SERVICE,
      `${a.method} ${a.url.pathname} answered HTTP ${response.status}${tries}: ${detail}`,
      {
        status: response.status,
        where: a.url.origin,
        hintKey: hintFor(response.status, text),
        retryAfterMs: parseRetryAfter(response.header('retry-after'), this.deps.clock.now()),
      },
    );
  }
}

function hintFor(status: number, body: string): HintKey | undefined {
  if (status === 401) return 'hint.gitlab.401';
  if (status === 403 && body.includes('insufficient_scope')) return 'hint.gitlab.scope';
  if (status === 403) return 'hint.gitlab.403';
  if (status === 429) return 'hint.gitlab.429';
  return undefined;
}

/**
 * A form (a pipeline trigger's variables) as its multipart bytes. The web
 * `Request` encodes it; it is the one thing here that loads Node's fetch.
 */
async function encodeForm(a: Attempt, form: FormData): Promise<void> {
  const encoded = new Request(a.url, { method: a.method, body: form });
  a.body = new Uint8Array(await encoded.arrayBuffer());
  a.headers['content-type'] = encoded.headers.get('content-type') ?? 'multipart/form-data';
}

/** A form built by gitbeaker, told apart without touching the `FormData` global (which loads fetch). */
function isForm(body: unknown): body is FormData {
  return Object.prototype.toString.call(body) === '[object FormData]';
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/**
 * gitbeaker's request options: its own handler for headers, sudo,
 * authentication and the query string; a JSON body encoded here as it
 * encodes one (snake_case keys), because its `instanceof FormData` test
 * would load Node's fetch before the first request.
 */
async function requestOptionsOf(
  resource: ResourceOptions,
  method: string,
  options: DefaultRequestOptions | undefined,
): Promise<Record<string, unknown>> {
  const { body, ...rest } = options ?? {};
  if (!body || isForm(body)) return defaultOptionsHandler(resource, { ...options, method });
  const handled = await defaultOptionsHandler(resource, { ...rest, method });
  return {
    ...handled,
    body: JSON.stringify(decamelizeKeys(body)),
    headers: { ...handled.headers, 'content-type': 'application/json' },
  };
}

/** A gitbeaker `requesterFn` using the retrying handler. */
export function createRetryingRequesterFn(
  deps: RequesterDeps,
): (options: ResourceOptions) => RequesterType {
  const handler = new RetryingHandler(deps);
  return (resource) => {
    const requester = {} as RequesterType;
    for (const method of METHODS) {
      const send = async (endpoint: string, options?: DefaultRequestOptions) =>
        handler.handle(endpoint, await requestOptionsOf(resource, method.toUpperCase(), options));
      // the body's type is the caller's to name, as with gitbeaker's own requester
      requester[method] = send as RequesterType[typeof method];
    }
    return requester;
  };
}
