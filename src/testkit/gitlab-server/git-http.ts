/**
 * Optional smart-HTTP git for the stand-in (`git http-backend` as CGI): the
 * same bare repositories, served at `<base>/<group>/<name>.git` with GitLab's
 * rules for HTTP auth — Basic with any user name and an access token as the
 * password (or `gitlab-ci-token` + a job token) — so pushes that carry the
 * token as a header are really authenticated.
 */
import { spawn } from 'node:child_process';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Fault } from './faults.ts';
import type { GitLabModel } from './model.ts';
import type { ProjectRec, TokenRec } from './records.ts';

const GIT_PATH = /^\/(.+?\.git)(\/(?:info\/refs|git-upload-pack|git-receive-pack))$/;

function basicToken(req: IncomingMessage): { user: string; token: string } | undefined {
  const match = /^Basic\s+(.+)$/i.exec(req.headers.authorization ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon === -1
    ? undefined
    : { user: decoded.slice(0, colon), token: decoded.slice(colon + 1) };
}

function deny(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, {
    'content-type': 'text/plain',
    ...(status === 401 ? { 'www-authenticate': 'Basic realm="GitLab"' } : {}),
  });
  res.end(`${text}\n`);
}

function mayWrite(model: GitLabModel, project: ProjectRec, token: TokenRec): boolean {
  if (token.kind === 'job') return false;
  if (!token.scopes.some((s) => s === 'api' || s === 'write_repository')) return false;
  return model.accessLevel(project, token.userId) >= 30;
}

const PROTECTED = 'You are not allowed to push code to protected branches on this project.';

/**
 * What the pre-receive hook (git.ts) refuses for this pusher: protected
 * branches whose push role is above the pusher's (`0`: no one may push), and
 * the project's push rules.
 */
function pushRules(model: GitLabModel, project: ProjectRec, userId: number) {
  const level = model.accessLevel(project, userId);
  const rules = [
    ...model.protectedBranches
      .filter((b) => b.projectId === project.id)
      .filter((b) => b.pushAccessLevel === 0 || level < b.pushAccessLevel)
      .map((b) => ({ pattern: b.name, message: PROTECTED })),
    ...model.pushRefusals
      .filter((r) => r.projectId === project.id)
      .map((r) => ({ pattern: r.branch, message: r.message })),
  ];
  const env: Record<string, string> = { STANDIN_RULE_COUNT: String(rules.length) };
  rules.forEach((rule, i) => {
    env[`STANDIN_RULE_PATTERN_${i}`] = rule.pattern;
    env[`STANDIN_RULE_MESSAGE_${i}`] = rule.message;
  });
  return env;
}

/**
 * Serves a git smart-HTTP request; false when the path is not a repository
 * path. `fault` (a `git: true` fault): answer with its status without running
 * git, never answer (`hang`), or carry the push out and then drop the
 * connection (`afterHandling`) — a push that landed although git saw it fail.
 */
export function serveGit(
  model: GitLabModel,
  root: string,
  pathEnv: string,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  fault?: Fault,
): boolean {
  const match = GIT_PATH.exec(url.pathname);
  if (!match) return false;
  const projectPath = match[1]!.slice(0, -'.git'.length);
  const project = model.findProject(decodeURIComponent(projectPath));
  const service = url.searchParams.get('service') ?? match[2]!.slice(1);
  const credentials = basicToken(req);
  const token = credentials && model.tokens.get(credentials.token);
  if (!project)
    return (deny(res, 404, 'The project you were looking for could not be found.'), true);
  if (!token || token.revoked) return (deny(res, 401, 'HTTP Basic: Access denied'), true);
  const writing = service === 'git-receive-pack';
  if (writing ? !mayWrite(model, project, token) : model.accessLevel(project, token.userId) < 10)
    return (deny(res, 403, 'You are not allowed to push code to this project.'), true);

  if (fault?.hang && !fault.afterHandling) return true;
  if (fault && !fault.afterHandling)
    return (deny(res, fault.status ?? 502, `${fault.status ?? 502} stand-in fault`), true);
  const child = spawn('git', ['http-backend'], {
    env: {
      ...(writing ? pushRules(model, project, token.userId) : {}),
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: '1',
      PATH_INFO: `/${match[1]}${match[2]}`,
      QUERY_STRING: url.search.slice(1),
      REQUEST_METHOD: req.method ?? 'GET',
      CONTENT_TYPE: req.headers['content-type'] ?? '',
      HTTP_CONTENT_ENCODING: String(req.headers['content-encoding'] ?? ''),
      REMOTE_USER: model.users.get(token.userId)?.username ?? 'user',
      REMOTE_ADDR: '127.0.0.1',
      PATH: pathEnv,
    },
  });
  req.pipe(child.stdin);
  if (fault?.afterHandling) {
    child.stdout.resume();
    child.on('close', () => res.socket?.destroy());
  } else relayCgi(child.stdout, res);
  child.on('error', () => deny(res, 500, 'git http-backend failed'));
  return true;
}

/** Copies a CGI answer (headers, blank line, body) to the HTTP response. */
function relayCgi(stdout: NodeJS.ReadableStream, res: ServerResponse): void {
  let head = Buffer.alloc(0);
  let started = false;
  stdout.on('data', (chunk: Buffer) => {
    if (started) return void res.write(chunk);
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end === -1) return;
    started = true;
    let status = 200;
    const headers: Record<string, string> = {};
    for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (name === 'status') status = Number(value.split(' ')[0]) || 200;
      else if (name) headers[name] = value;
    }
    res.writeHead(status, headers);
    res.write(head.subarray(end + 4));
  });
  stdout.on('end', () => res.end());
}
