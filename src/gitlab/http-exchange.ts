/**
 * One HTTP exchange with GitLab over Node's own `http`/`https` modules.
 *
 * Node's `fetch` loads undici, its HTTP client, on first use: tens of
 * milliseconds before a job's first request, which every job would spend
 * before its progress note. These modules load in a few. What `fetch` did
 * for GitLab's API is kept: redirects of reads are followed (at most five),
 * and the credentials leave the request when a redirect leads to another
 * origin; a body is read whole as JSON, text or a Blob, or handed on as a
 * web stream; the proxy settings apply as Node applies them to its global
 * agent (`NODE_USE_ENV_PROXY`).
 */
import type { ClientRequest, IncomingMessage, RequestOptions } from 'node:http';
import { Readable } from 'node:stream';
import type { ReadableStream } from 'node:stream/web';

export interface HttpRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body?: string | Uint8Array | undefined;
  signal: AbortSignal;
}

/** GitLab's answer: its status and headers at once, the body when read. */
export interface HttpAnswer {
  status: number;
  ok: boolean;
  /** Lower-case names; a repeated header's values joined with ", ". */
  headers: Record<string, string>;
  header(name: string): string | null;
  text(): Promise<string>;
  json(): Promise<unknown>;
  blob(): Promise<Blob>;
  stream(): ReadableStream;
  /** Reads nothing more: the connection is closed. */
  discard(): void;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 5;
/** Headers that carry a credential: never sent to another origin. */
const CREDENTIALS = new Set(['private-token', 'job-token', 'authorization', 'cookie']);

type RequestFn = (url: URL, options: RequestOptions) => ClientRequest;

/**
 * `http.request` or `https.request`, the latter loaded only for an https URL.
 * Taken as Node's own modules, not imported: an ES import of `node:http`
 * reads every export, its `WebSocket` among them, and that loads undici.
 */
function requestFnFor(url: URL): RequestFn {
  if (url.protocol === 'http:') return process.getBuiltinModule('node:http').request;
  if (url.protocol === 'https:') return process.getBuiltinModule('node:https').request;
  throw new TypeError(`unsupported URL scheme ${url.protocol} (http: or https: only)`);
}

function headersOf(response: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (value === undefined) continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function readAll(response: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.on('end', () => resolve(Buffer.concat(chunks)));
    response.on('error', reject);
    response.on('close', () => {
      if (!response.complete)
        reject(Object.assign(new Error('the answer was cut off'), { code: 'ECONNRESET' }));
    });
  });
}

function answerOf(response: IncomingMessage): HttpAnswer {
  const status = response.statusCode ?? 0;
  const headers = headersOf(response);
  let body: Promise<Buffer> | undefined;
  const bytes = () => (body ??= readAll(response));
  return {
    status,
    ok: status >= 200 && status < 300,
    headers,
    header: (name) => headers[name.toLowerCase()] ?? null,
    text: async () => (await bytes()).toString('utf8'),
    json: async () => JSON.parse((await bytes()).toString('utf8')) as unknown,
    blob: async () => new Blob([await bytes()], { type: headers['content-type'] ?? '' }),
    stream: () => Readable.toWeb(response) as ReadableStream,
    discard: () => response.destroy(),
  };
}

function exchangeOnce(send: RequestFn, request: HttpRequest): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const headers = { ...request.headers };
    if (request.body !== undefined)
      headers['content-length'] = String(Buffer.byteLength(request.body));
    const outgoing = send(request.url, {
      method: request.method,
      headers,
      signal: request.signal,
    });
    outgoing.on('response', resolve);
    outgoing.on('error', reject);
    outgoing.end(request.body);
  });
}

/** The request a redirect asks for, or undefined when it is not followed. */
function redirected(request: HttpRequest, response: IncomingMessage): HttpRequest | undefined {
  const status = response.statusCode ?? 0;
  const location = response.headers.location;
  if (!REDIRECTS.has(status) || !location) return undefined;
  if (request.method !== 'GET' && request.method !== 'HEAD') return undefined;
  const url = new URL(location, request.url);
  const headers =
    url.origin === request.url.origin
      ? request.headers
      : Object.fromEntries(
          Object.entries(request.headers).filter(([name]) => !CREDENTIALS.has(name.toLowerCase())),
        );
  return { ...request, url, headers };
}

/** Sends the request and answers once GitLab's status and headers arrived. */
export async function exchange(request: HttpRequest): Promise<HttpAnswer> {
  let current = request;
  for (let hops = 0; ; hops++) {
    const response = await exchangeOnce(requestFnFor(current.url), current);
    const next = hops < MAX_REDIRECTS ? redirected(current, response) : undefined;
    if (!next) return answerOf(response);
    response.resume();
    current = next;
  }
}
