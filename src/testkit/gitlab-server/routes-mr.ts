/** Merge requests (with fork sources and diffs) and issues. */
import { DEVELOPER, issueOf, mergeRequestOf, projectOf } from './access.ts';
import { diffFiles, revParse } from './git.ts';
import { HttpError, json, paginate, route, stringParam, type Ctx, type Route } from './http.ts';
import { runQuickActions } from './quick-actions.ts';
import type { MergeRequestRec, ProjectRec } from './records.ts';
import type { Renderer } from './render.ts';

/** The source branch's head, read from the source project (the fork for fork MRs). */
async function headSha(ctx: Ctx, mr: MergeRequestRec): Promise<string> {
  const source = ctx.model.projects.get(mr.sourceProjectId);
  return (source && (await revParse(source.repoDir, `refs/heads/${mr.sourceBranch}`))) ?? '';
}

async function renderMr(ctx: Ctx, render: Renderer, mr: MergeRequestRec, project: ProjectRec) {
  return render.mergeRequest(mr, await headSha(ctx, mr), project);
}

async function diffs(ctx: Ctx, mr: MergeRequestRec, project: ProjectRec) {
  let head = `refs/heads/${mr.sourceBranch}`;
  const source = ctx.model.projects.get(mr.sourceProjectId);
  // GitLab keeps a fork MR's head in the target project as refs/merge-requests/:iid/head.
  if (source && source.id !== project.id) head = await ctx.model.updateMergeRequestRef(mr);
  return diffFiles(project.repoDir, `refs/heads/${mr.targetBranch}`, head);
}

function createMr(ctx: Ctx, project: ProjectRec): MergeRequestRec {
  const sourceBranch = stringParam(ctx, 'source_branch', true)!;
  const targetBranch = stringParam(ctx, 'target_branch', true)!;
  const title = stringParam(ctx, 'title', true)!;
  const clash = ctx.model.mergeRequests.find(
    (m) =>
      m.projectId === project.id &&
      m.state === 'opened' &&
      m.sourceBranch === sourceBranch &&
      m.targetBranch === targetBranch,
  );
  if (clash)
    throw new HttpError(409, {
      message: [`Another open merge request already exists for this source branch: !${clash.iid}`],
    });
  const labels = stringParam(ctx, 'labels');
  const mr = ctx.model.createMergeRequest({
    project,
    sourceBranch,
    targetBranch,
    title,
    description: stringParam(ctx, 'description') ?? '',
    labels: labels ? labels.split(',').filter(Boolean) : [],
    authorId: ctx.user!.id,
  });
  mr.removeSourceBranch = ['true', '1'].includes(stringParam(ctx, 'remove_source_branch') ?? '');
  // GitLab runs the quick actions of a description created through the API (titles are not read)
  mr.description = runQuickActions(
    ctx.model.quickActions,
    mr,
    ctx.user!.id,
    mr.description,
  ).remaining;
  return mr;
}

export function mergeRequestRoutes(render: Renderer): Route[] {
  return [
    route('GET', '/projects/:id/merge_requests', async (ctx) => {
      const project = projectOf(ctx);
      const state = stringParam(ctx, 'state');
      const source = stringParam(ctx, 'source_branch');
      const list = ctx.model.mergeRequests
        .filter((m) => m.projectId === project.id)
        .filter((m) => !state || state === 'all' || m.state === state)
        .filter((m) => !source || m.sourceBranch === source)
        .reverse();
      return paginate(ctx, await Promise.all(list.map((m) => renderMr(ctx, render, m, project))));
    }),
    route('POST', '/projects/:id/merge_requests', async (ctx) => {
      const project = projectOf(ctx, DEVELOPER);
      const mr = createMr(ctx, project);
      return json(201, await renderMr(ctx, render, mr, project));
    }),
    route(
      'GET',
      '/projects/:id/merge_requests/:iid',
      async (ctx) => {
        const project = projectOf(ctx);
        return json(200, await renderMr(ctx, render, mergeRequestOf(ctx, project), project));
      },
      { jobToken: true },
    ),
    route('GET', '/projects/:id/merge_requests/:iid/diffs', async (ctx) => {
      const project = projectOf(ctx);
      return paginate(ctx, await diffs(ctx, mergeRequestOf(ctx, project), project));
    }),
    route('GET', '/projects/:id/issues/:iid', (ctx) => {
      const project = projectOf(ctx);
      return json(200, render.issue(issueOf(ctx, project), project));
    }),
  ];
}
