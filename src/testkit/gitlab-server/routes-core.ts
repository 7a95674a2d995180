/** Users, tokens, projects, members, protected branches and repository reads. */
import { DEVELOPER, projectOf } from './access.ts';
import { readBlob, revParse } from './git.ts';
import { json, notFound, paginate, route, stringParam, unauthorized, type Route } from './http.ts';
import type { Renderer } from './render.ts';

export function coreRoutes(render: Renderer): Route[] {
  return [
    route('GET', '/version', (ctx) =>
      json(200, { version: ctx.model.gitlabVersion, revision: 'standin' }),
    ),
    route('GET', '/user', (ctx) => json(200, render.user(ctx.user!.id))),
    route('GET', '/users/:user_id', (ctx) => {
      const user = ctx.model.users.get(Number(ctx.params.user_id));
      if (!user) throw notFound('User');
      return json(200, render.user(user.id));
    }),
    route('GET', '/personal_access_tokens/self', (ctx) => {
      if (!ctx.token || ctx.token.kind !== 'personal') throw unauthorized();
      return json(200, render.token(ctx.token));
    }),
    route('GET', '/projects/:id', (ctx) => json(200, render.project(projectOf(ctx))), {
      jobToken: true,
    }),
    // every member, inherited ones included, with the effective (highest) role; paginated
    route('GET', '/projects/:id/members/all', (ctx) => {
      const project = projectOf(ctx);
      const ids = [...new Set(ctx.model.members.map((m) => m.userId))].sort((a, b) => a - b);
      const members = ids
        .filter((id) => ctx.model.users.has(id))
        .map((id) => ({ id, level: ctx.model.accessLevel(project, id) }))
        .filter((m) => m.level > 0);
      return paginate(
        ctx,
        members.map((m) => render.member(m.id, m.level)),
      );
    }),
    route('GET', '/projects/:id/members/all/:user_id', (ctx) => {
      const project = projectOf(ctx);
      const level = ctx.model.accessLevel(project, Number(ctx.params.user_id));
      if (level === 0 || !ctx.model.users.has(Number(ctx.params.user_id))) throw notFound();
      return json(200, render.member(Number(ctx.params.user_id), level));
    }),
    route('GET', '/projects/:id/members/:user_id', (ctx) => {
      const project = projectOf(ctx);
      const userId = Number(ctx.params.user_id);
      const direct = ctx.model.members.find((m) => m.scope === project.id && m.userId === userId);
      if (!direct) throw notFound();
      return json(200, render.member(userId, direct.accessLevel));
    }),
    route('GET', '/projects/:id/protected_branches', (ctx) => {
      const project = projectOf(ctx, DEVELOPER);
      const branches = ctx.model.protectedBranches.filter((b) => b.projectId === project.id);
      return paginate(
        ctx,
        branches.map((b) => render.protectedBranch(b)),
      );
    }),
    route('GET', '/projects/:id/protected_branches/:name', (ctx) => {
      const project = projectOf(ctx, DEVELOPER);
      const branch = ctx.model.protectedBranches.find(
        (b) => b.projectId === project.id && b.name === ctx.params.name,
      );
      if (!branch) throw notFound('Protected Branch');
      return json(200, render.protectedBranch(branch));
    }),
    route('GET', '/projects/:id/repository/branches/:name', async (ctx) => {
      const project = projectOf(ctx);
      const sha = await revParse(project.repoDir, `refs/heads/${ctx.params.name}`);
      if (!sha) throw notFound('Branch');
      const name = ctx.params.name!;
      return json(200, {
        name,
        commit: { id: sha, short_id: sha.slice(0, 8) },
        protected: ctx.model.protectedBranches.some(
          (b) => b.projectId === project.id && b.name === name,
        ),
        default: name === project.defaultBranch,
      });
    }),
    route('GET', '/projects/:id/repository/files/:file_path/raw', async (ctx) => {
      const project = projectOf(ctx);
      const ref = stringParam(ctx, 'ref') ?? project.defaultBranch;
      const blob = await readBlob(project.repoDir, ref, ctx.params.file_path!);
      if (!blob) throw notFound('File');
      return { status: 200, bytes: blob, contentType: 'text/plain; charset=utf-8' };
    }),
  ];
}
