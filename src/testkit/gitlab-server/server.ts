/**
 * The GitLab stand-in: real HTTP under `/api/v4` over node:http, an in-memory
 * model (model.ts) and one bare git repository per project. Tests, benches
 * and `mr-agent demo` run `@gitbeaker/rest` against it unmodified.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { systemClock, type Clock } from '../../core/clock.ts';
import { Faults, RequestLog } from './faults.ts';
import { serveGit } from './git-http.ts';
import { Hooks } from './hooks.ts';
import {
  fromPairs,
  HttpError,
  matchRoute,
  parseBody,
  unauthorized,
  type Ctx,
  type Reply,
  type Route,
} from './http.ts';
import { GitLabModel } from './model.ts';
import type { TokenRec } from './records.ts';
import { Renderer } from './render.ts';
import { ciRoutes } from './routes-ci.ts';
import { coreRoutes } from './routes-core.ts';
import { mergeRequestRoutes } from './routes-mr.ts';
import { noteRoutes } from './routes-notes.ts';
import { targetAwardRoutes } from './routes-awards.ts';
import { reviewRoutes } from './routes-review.ts';

export interface StandInOptions {
  /** Folder for the bare repositories (a fresh temp folder when absent; removed on close). */
  root?: string;
  clock?: Clock;
  port?: number;
  /**
   * Also serve the repositories over smart HTTP (`<url>/<group>/<name>.git`, token
   * as Basic-auth password) and advertise those URLs as `http_url_to_repo`;
   * otherwise the advertised remotes are `file://` paths.
   */
  gitHttp?: boolean;
  /** PATH used to find `git` for smart HTTP (default /usr/local/bin:/usr/bin:/bin). */
  pathEnv?: string;
}

export interface GitLabStandIn {
  /** `http://127.0.0.1:<port>` — what a GitLab client takes as its host. */
  url: string;
  model: GitLabModel;
  faults: Faults;
  requests: RequestLog;
  /** Project webhooks (Comments events) and their deliveries. */
  hooks: Hooks;
  close(): Promise<void>;
}

const MAX_BODY = 32 * 1024 * 1024;
const API = '/api/v4';

async function readRaw(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new HttpError(413, { message: '413 Request Entity Too Large' });
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function tokenValue(req: IncomingMessage): string | undefined {
  const header = (name: string) => {
    const v = req.headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
  const bearer = /^Bearer\s+(.+)$/i.exec(header('authorization') ?? '')?.[1];
  return header('private-token') ?? header('job-token') ?? bearer;
}

/** GitLab's answer to a token without the scope: 403 `insufficient_scope` (OAuth bearer style). */
function checkScopes(token: TokenRec, method: string): void {
  if (token.kind === 'job') return;
  const needed = method === 'GET' || method === 'HEAD' ? ['api', 'read_api'] : ['api'];
  if (token.scopes.some((s) => needed.includes(s))) return;
  throw new HttpError(403, {
    error: 'insufficient_scope',
    error_description: 'The request requires higher privileges than provided by the access token.',
    scope: needed.join(' '),
  });
}

function authenticate(ctx: Ctx, route: Route): void {
  if (route.options.public) return;
  const value = tokenValue(ctx.req);
  const token = value === undefined ? undefined : ctx.model.tokens.get(value);
  const now = Date.parse(ctx.model.now());
  const expired = token?.expiresAt ? Date.parse(token.expiresAt) < now : false;
  if (!token || token.revoked || expired) throw unauthorized();
  if (token.kind === 'job' && !route.options.jobToken) throw unauthorized();
  checkScopes(token, ctx.method);
  ctx.token = token;
  ctx.user = ctx.model.users.get(token.userId);
}

function send(res: ServerResponse, reply: Reply): void {
  const headers: Record<string, string> = { ...reply.headers };
  let payload: string | Uint8Array;
  if (reply.bytes !== undefined) {
    headers['content-type'] = reply.contentType ?? 'application/octet-stream';
    payload = reply.bytes;
  } else {
    headers['content-type'] = 'application/json';
    payload = reply.json === undefined ? '' : JSON.stringify(reply.json);
  }
  res.writeHead(reply.status, headers);
  res.end(payload);
}

/** The answer's headers (its full length announced) and half its body, then the connection drops. */
function sendHalf(res: ServerResponse, reply: Reply): void {
  const payload = Buffer.from(
    reply.bytes ?? (reply.json === undefined ? '' : JSON.stringify(reply.json)),
  );
  res.writeHead(reply.status, {
    ...reply.headers,
    'content-type': reply.bytes
      ? (reply.contentType ?? 'application/octet-stream')
      : 'application/json',
    'content-length': String(payload.length),
  });
  res.write(payload.subarray(0, Math.floor(payload.length / 2)), () => res.destroy());
}

function faultReply(status: number, body: unknown, retryAfter?: number | string): Reply {
  const messages: Record<number, string> = {
    403: '403 Forbidden',
    429: 'Retry later',
    500: '500 Internal Server Error',
    502: '502 Bad Gateway',
    503: '503 Service Unavailable',
  };
  const headers =
    retryAfter !== undefined ? { headers: { 'retry-after': String(retryAfter) } } : {};
  // a proxy in front of GitLab answers with an HTML page, not JSON
  if (typeof body === 'string')
    return { status, bytes: body, contentType: 'text/html', ...headers };
  return { status, json: body ?? { message: messages[status] ?? `${status}` }, ...headers };
}

/** The parameters as logged: a public (trigger) route's `token` is its credential, not data. */
function loggedInput(input: Record<string, unknown>, isPublic: boolean): string {
  if (!isPublic) return JSON.stringify(input);
  const { token: _token, ...rest } = input;
  return JSON.stringify(rest);
}

export async function startGitLabStandIn(options: StandInOptions = {}): Promise<GitLabStandIn> {
  const ownRoot = options.root === undefined;
  const root = options.root ?? (await mkdtemp(path.join(tmpdir(), 'gitlab-standin-')));
  const model = new GitLabModel(root, options.clock ?? systemClock);
  const faults = new Faults();
  const requests = new RequestLog();
  let routes: Route[] = [];
  let baseUrl = '';
  const pathEnv = options.pathEnv ?? '/usr/local/bin:/usr/bin:/bin';

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', baseUrl);
    const method = (req.method ?? 'GET').toUpperCase();
    const apiPath = url.pathname.startsWith(`${API}/`) ? url.pathname.slice(API.length) : '';
    const match = apiPath ? matchRoute(routes, method, apiPath) : undefined;
    let input: string | undefined;
    const log = (status: number) =>
      requests.record({
        method,
        path: url.pathname,
        route: match?.route.pattern ?? '',
        status,
        at: Date.now(),
        query: url.search,
        ...(input === undefined ? {} : { input }),
      });
    const gitFault = apiPath ? undefined : faults.take(method, url.pathname, true);
    if (!apiPath && options.gitHttp && serveGit(model, root, pathEnv, req, res, url, gitFault)) {
      // a dropped connection (a lost-answer fault) is logged with status 0
      res.on('close', () =>
        requests.record({
          method,
          path: url.pathname,
          route: 'git',
          status: res.writableFinished ? res.statusCode : 0,
          at: Date.now(),
        }),
      );
      return;
    }
    const taken = faults.take(method, apiPath);
    if (taken?.delayMs) await new Promise((resolve) => setTimeout(resolve, taken.delayMs));
    // a fault that only delays lets the request through as usual
    const delayOnly = taken?.delayMs !== undefined && taken.status === undefined && !taken.hang;
    const fault = delayOnly ? undefined : taken;
    const lostAnswer = fault?.afterHandling === true;
    if (fault?.hang && !lostAnswer) return log(0);
    if (fault?.redirectTo) {
      log(302);
      res.writeHead(302, { location: `${fault.redirectTo}${url.pathname}${url.search}` });
      res.end();
      return;
    }
    let reply: Reply;
    try {
      if (fault && !lostAnswer) throw faultReply(fault.status ?? 500, fault.body, fault.retryAfter);
      if (!match) throw new HttpError(404, { error: '404 Not Found' });
      const rawBody = await readRaw(req);
      const ctx: Ctx = {
        req,
        method,
        path: apiPath,
        url,
        params: match.params,
        query: url.searchParams,
        input: {
          ...fromPairs(url.searchParams.entries()),
          ...(await parseBody(req.headers['content-type'] ?? '', rawBody)),
        },
        rawBody,
        user: undefined,
        token: undefined,
        model,
        baseUrl,
      };
      input = loggedInput(ctx.input, match.route.options.public === true);
      authenticate(ctx, match.route);
      reply = await match.route.handler(ctx);
      if (fault && lostAnswer) {
        if (fault.hang) return log(0);
        throw faultReply(fault.status ?? 500, fault.body, fault.retryAfter);
      }
    } catch (error) {
      if (error instanceof HttpError) reply = { status: error.status, json: error.body };
      else if (error && typeof error === 'object' && 'status' in error) reply = error as Reply;
      else if (error instanceof SyntaxError)
        reply = { status: 400, json: { error: 'invalid JSON body' } };
      else reply = { status: 500, json: { message: '500 Internal Server Error' } };
    }
    log(reply.status);
    if (fault?.cutOff) return sendHalf(res, reply);
    send(res, reply);
  };

  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const render = new Renderer(model, baseUrl, options.gitHttp === true);
  const hooks = new Hooks(model, render);
  routes = [
    ...coreRoutes(render),
    ...mergeRequestRoutes(render),
    ...noteRoutes(render),
    ...targetAwardRoutes(render),
    ...ciRoutes(render),
    ...reviewRoutes(render),
  ];

  return {
    url: baseUrl,
    model,
    faults,
    requests,
    hooks,
    async close() {
      await hooks.idle();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (ownRoot) await rm(root, { recursive: true, force: true });
    },
  };
}
