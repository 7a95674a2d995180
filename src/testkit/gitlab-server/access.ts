/** Who may see and do what in the stand-in (a simplified GitLab permission model). */
import { forbidden, notFound, type Ctx } from './http.ts';
import type { IssueRec, MergeRequestRec, NoteableKind, ProjectRec } from './records.ts';

export const GUEST = 10;
export const REPORTER = 20;
export const DEVELOPER = 30;
export const MAINTAINER = 40;

export function levelOf(ctx: Ctx, project: ProjectRec): number {
  if (!ctx.user) return 0;
  if (ctx.token?.kind === 'job') {
    const job = ctx.model.jobs.find((j) => j.id === ctx.token?.jobId);
    // A job token acts for the pipeline's user, but only inside its own project by default.
    if (job?.projectId !== project.id) return 0;
  }
  return ctx.model.accessLevel(project, ctx.user.id);
}

function canRead(ctx: Ctx, project: ProjectRec): boolean {
  if (project.visibility === 'public') return true;
  if (project.visibility === 'internal' && ctx.user && ctx.token?.kind !== 'job') return true;
  return levelOf(ctx, project) >= GUEST;
}

/** The project of the route's `:id`, hidden (404) from whoever cannot read it. */
export function projectOf(ctx: Ctx, minLevel = 0): ProjectRec {
  const project = ctx.model.findProject(ctx.params.id ?? '');
  if (!project || !canRead(ctx, project)) throw notFound('Project');
  if (minLevel > 0 && levelOf(ctx, project) < minLevel) throw forbidden();
  return project;
}

export function mergeRequestOf(ctx: Ctx, project: ProjectRec): MergeRequestRec {
  const iid = Number(ctx.params.iid);
  const mr = ctx.model.mergeRequests.find((m) => m.projectId === project.id && m.iid === iid);
  if (!mr) throw notFound('Merge Request');
  return mr;
}

export function issueOf(ctx: Ctx, project: ProjectRec): IssueRec {
  const iid = Number(ctx.params.iid);
  const issue = ctx.model.issues.find((i) => i.projectId === project.id && i.iid === iid);
  if (!issue) throw notFound('Issue');
  return issue;
}

/** The merge request or issue named by `:noteables`/`:iid`. */
export function noteableOf(
  ctx: Ctx,
  project: ProjectRec,
): { rec: MergeRequestRec | IssueRec; kind: NoteableKind } {
  if (ctx.params.noteables === 'merge_requests')
    return { rec: mergeRequestOf(ctx, project), kind: 'MergeRequest' };
  if (ctx.params.noteables === 'issues') return { rec: issueOf(ctx, project), kind: 'Issue' };
  throw notFound();
}

/** Commenting: any signed-in user on public projects, members otherwise (not with a job token). */
export function requireCanComment(ctx: Ctx, project: ProjectRec): void {
  if (ctx.token?.kind === 'job') throw forbidden();
  if (project.visibility !== 'public' && levelOf(ctx, project) < GUEST) throw forbidden();
}
