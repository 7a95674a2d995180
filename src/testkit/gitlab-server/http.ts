/** The stand-in's small HTTP toolkit: routes, request context, replies, errors, pagination. */
import type { IncomingMessage } from 'node:http';
import type { GitLabModel } from './model.ts';
import type { TokenRec, UserRec } from './records.ts';

export interface Ctx {
  req: IncomingMessage;
  method: string;
  /** Path below `/api/v4`, still URL-encoded per segment. */
  path: string;
  url: URL;
  params: Record<string, string>;
  query: URLSearchParams;
  /** Query and body parameters merged (body wins); `a[b]=c` becomes `{a: {b: 'c'}}`. */
  input: Record<string, unknown>;
  rawBody: Buffer;
  user: UserRec | undefined;
  token: TokenRec | undefined;
  model: GitLabModel;
  /** `http://127.0.0.1:port` */
  baseUrl: string;
}

export interface Reply {
  status: number;
  json?: unknown;
  bytes?: Uint8Array | string;
  contentType?: string;
  headers?: Record<string, string>;
}

export type Handler = (ctx: Ctx) => Promise<Reply> | Reply;

export interface RouteOptions {
  /** No API token needed (the trigger API authenticates by its own token). */
  public?: boolean;
  /** CI_JOB_TOKEN is accepted here (GitLab's job-token allow list). */
  jobToken?: boolean;
}

export interface Route {
  method: string;
  pattern: string;
  regex: RegExp;
  keys: string[];
  handler: Handler;
  options: RouteOptions;
}

export function route(
  method: string,
  pattern: string,
  handler: Handler,
  options: RouteOptions = {},
): Route {
  const keys: string[] = [];
  const source = pattern.replace(/:([a-z_]+)/g, (_, key: string) => {
    keys.push(key);
    return key === 'file_path' ? '(.+?)' : '([^/]+)';
  });
  return { method, pattern, regex: new RegExp(`^${source}$`), keys, handler, options };
}

export function matchRoute(
  routes: readonly Route[],
  method: string,
  path: string,
): { route: Route; params: Record<string, string> } | undefined {
  for (const r of routes) {
    if (r.method !== method) continue;
    const m = r.regex.exec(path);
    if (!m) continue;
    const params: Record<string, string> = {};
    r.keys.forEach((key, i) => (params[key] = decodeURIComponent(m[i + 1]!)));
    return { route: r, params };
  }
  return undefined;
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`HTTP ${status}`);
  }
}

export const json = (status: number, body: unknown, headers?: Record<string, string>): Reply => ({
  status,
  json: body,
  ...(headers ? { headers } : {}),
});

/** GitLab's `not_found!(what)`: `{"message":"404 <what> Not Found"}`. */
export function notFound(what?: string): HttpError {
  return new HttpError(404, { message: what ? `404 ${what} Not Found` : '404 Not Found' });
}
export const forbidden = (reason?: string) =>
  new HttpError(403, { message: reason ? `403 Forbidden - ${reason}` : '403 Forbidden' });
export const unauthorized = () => new HttpError(401, { message: '401 Unauthorized' });
export const badRequest = (reason: string) =>
  new HttpError(400, { message: `400 Bad request - ${reason}` });
/** Grape's answer for a missing required parameter. */
export const missing = (param: string) => new HttpError(400, { error: `${param} is missing` });

export function stringParam(ctx: Ctx, name: string, required = false): string | undefined {
  const value = ctx.input[name];
  if (value === undefined || value === null || value === '') {
    if (required) throw missing(name);
    return undefined;
  }
  return String(value);
}

export function intParam(ctx: Ctx, name: string): number {
  const value = Number(ctx.params[name]);
  if (!Number.isInteger(value)) throw new HttpError(400, { error: `${name} is invalid` });
  return value;
}

/** GitLab offset pagination: `page`, `per_page` (default 20, max 100) and its headers. */
export function paginate<T>(ctx: Ctx, items: readonly T[]): Reply {
  const perPage = Math.min(100, Math.max(1, Number(ctx.query.get('per_page') ?? 20) || 20));
  const total = items.length;
  const totalPages = Math.max(1, Math.ceil(total / perPage));
  const page = Math.max(1, Number(ctx.query.get('page') ?? 1) || 1);
  const slice = items.slice((page - 1) * perPage, page * perPage);
  const link = (p: number) => {
    const url = new URL(ctx.url.pathname, ctx.baseUrl);
    ctx.query.forEach((v, k) => url.searchParams.set(k, v));
    url.searchParams.set('page', String(p));
    url.searchParams.set('per_page', String(perPage));
    return url.toString();
  };
  const links: string[] = [];
  if (page > 1) links.push(`<${link(page - 1)}>; rel="prev"`);
  if (page < totalPages) links.push(`<${link(page + 1)}>; rel="next"`);
  links.push(`<${link(1)}>; rel="first"`, `<${link(totalPages)}>; rel="last"`);
  return json(200, slice, {
    'x-page': String(page),
    'x-per-page': String(perPage),
    'x-next-page': page < totalPages ? String(page + 1) : '',
    'x-prev-page': page > 1 ? String(page - 1) : '',
    'x-total': String(total),
    'x-total-pages': String(totalPages),
    link: links.join(', '),
  });
}

function assignDeep(target: Record<string, unknown>, key: string, value: unknown) {
  const parts = key.replace(/\]/g, '').split('[');
  let node = target;
  parts.slice(0, -1).forEach((part) => {
    if (typeof node[part] !== 'object' || node[part] === null) node[part] = {};
    node = node[part] as Record<string, unknown>;
  });
  node[parts.at(-1)!] = value;
}

/** Form fields (`variables[KEY]=value`) → nested object. */
export function fromPairs(pairs: Iterable<[string, unknown]>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of pairs) assignDeep(out, key, value);
  return out;
}

export async function parseBody(
  contentType: string,
  raw: Buffer,
): Promise<Record<string, unknown>> {
  if (raw.length === 0) return {};
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json') {
    const parsed: unknown = JSON.parse(raw.toString('utf8'));
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  }
  if (type === 'application/x-www-form-urlencoded')
    return fromPairs(new URLSearchParams(raw.toString('utf8')).entries());
  if (type === 'multipart/form-data') {
    const form = await new Request('http://stand-in/', {
      method: 'POST',
      headers: { 'content-type': contentType },
      body: new Uint8Array(raw),
    }).formData();
    const pairs: [string, unknown][] = [];
    form.forEach((value, key) => pairs.push([key, typeof value === 'string' ? value : value.name]));
    return fromPairs(pairs);
  }
  return {};
}
