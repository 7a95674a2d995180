/** Pipelines, jobs, job artifacts and the pipeline trigger API. */
import { DEVELOPER, projectOf, REPORTER } from './access.ts';
import { revParse } from './git.ts';
import {
  forbidden,
  HttpError,
  json,
  notFound,
  paginate,
  route,
  stringParam,
  type Ctx,
  type Route,
} from './http.ts';
import { TERMINAL } from './model.ts';
import type { PipelineRec, ProjectRec } from './records.ts';
import type { Renderer } from './render.ts';

function pipelineOf(ctx: Ctx, project: ProjectRec): PipelineRec {
  const id = Number(ctx.params.pipeline_id);
  const pipeline = ctx.model.pipelines.find((p) => p.projectId === project.id && p.id === id);
  if (!pipeline) throw notFound();
  return pipeline;
}

function jobsAnswer(ctx: Ctx, render: Renderer, project: ProjectRec, pipelineId?: number) {
  const jobs = ctx.model.jobs
    .filter(
      (j) =>
        j.projectId === project.id && (pipelineId === undefined || j.pipelineId === pipelineId),
    )
    .reverse();
  return paginate(
    ctx,
    jobs.map((j) =>
      render.job(
        j,
        ctx.model.pipelines.find((p) => p.id === j.pipelineId)!,
        project,
      ),
    ),
  );
}

function triggerVariables(ctx: Ctx): Record<string, string> {
  const raw = ctx.input.variables ?? {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new HttpError(400, { message: 'variables needs to be a map of key-valued strings' });
  const entries = Object.entries(raw as Record<string, unknown>);
  if (!entries.every(([, v]) => typeof v === 'string'))
    throw new HttpError(400, { message: 'variables needs to be a map of key-valued strings' });
  return Object.fromEntries(entries) as Record<string, string>;
}

/** `POST /projects/:id/(ref/:ref/)trigger/pipeline`: authenticated by the trigger token only. */
async function trigger(ctx: Ctx, render: Renderer) {
  if (ctx.req.headers['x-gitlab-event'] === 'Pipeline Hook') throw forbidden();
  const ref = ctx.params.ref ?? stringParam(ctx, 'ref', true)!;
  const token = stringParam(ctx, 'token', true)!;
  const variables = triggerVariables(ctx);
  const project = ctx.model.findProject(ctx.params.id ?? '');
  const trigger = ctx.model.triggerTokens.find(
    (t) => t.value === token && t.projectId === project?.id,
  );
  if (!project || !trigger) throw notFound();
  if (!(await revParse(project.repoDir, ref)))
    throw new HttpError(400, { message: { base: ['Reference not found'] } });
  if (ctx.params.ref !== undefined && ctx.rawBody.length > 0)
    variables.TRIGGER_PAYLOAD = ctx.rawBody.toString('utf8');
  const { pipeline } = await ctx.model.createPipeline({
    project,
    ref,
    source: 'trigger',
    status: 'pending',
    variables,
    userId: trigger.ownerId,
    jobs: ctx.model.triggeredJobs,
  });
  return json(201, render.pipeline(pipeline, project));
}

export function ciRoutes(render: Renderer): Route[] {
  return [
    route('GET', '/projects/:id/pipelines', (ctx) => {
      const project = projectOf(ctx, REPORTER);
      const [ref, status, source] = ['ref', 'status', 'source'].map((k) => stringParam(ctx, k));
      const list = ctx.model.pipelines
        .filter((p) => p.projectId === project.id)
        .filter((p) => (!ref || p.ref === ref) && (!status || p.status === status))
        .filter((p) => !source || p.source === source)
        .reverse();
      return paginate(
        ctx,
        list.map((p) => render.pipeline(p, project)),
      );
    }),
    route('GET', '/projects/:id/pipelines/:pipeline_id', (ctx) => {
      const project = projectOf(ctx, REPORTER);
      return json(200, render.pipeline(pipelineOf(ctx, project), project));
    }),
    route('GET', '/projects/:id/pipelines/:pipeline_id/variables', (ctx) => {
      const project = projectOf(ctx, DEVELOPER);
      const vars = pipelineOf(ctx, project).variables;
      return json(
        200,
        Object.entries(vars).map(([key, value]) => ({ key, value, variable_type: 'env_var' })),
      );
    }),
    route('GET', '/projects/:id/pipelines/:pipeline_id/jobs', (ctx) => {
      const project = projectOf(ctx, REPORTER);
      return jobsAnswer(ctx, render, project, pipelineOf(ctx, project).id);
    }),
    route('POST', '/projects/:id/pipelines/:pipeline_id/cancel', (ctx) => {
      const project = projectOf(ctx, DEVELOPER);
      const pipeline = pipelineOf(ctx, project);
      if (!TERMINAL.includes(pipeline.status)) ctx.model.setPipelineStatus(pipeline.id, 'canceled');
      return json(200, render.pipeline(pipeline, project));
    }),
    route('GET', '/projects/:id/jobs', (ctx) => jobsAnswer(ctx, render, projectOf(ctx, REPORTER))),
    route('GET', '/projects/:id/jobs/:job_id', (ctx) => {
      const project = projectOf(ctx, REPORTER);
      const job = ctx.model.jobs.find(
        (j) => j.projectId === project.id && j.id === Number(ctx.params.job_id),
      );
      if (!job) throw notFound();
      return json(
        200,
        render.job(
          job,
          ctx.model.pipelines.find((p) => p.id === job.pipelineId)!,
          project,
        ),
      );
    }),
    route(
      'GET',
      '/projects/:id/jobs/:job_id/artifacts',
      (ctx) => {
        const project = projectOf(ctx, REPORTER);
        const job = ctx.model.jobs.find(
          (j) => j.projectId === project.id && j.id === Number(ctx.params.job_id),
        );
        if (!job?.artifacts) throw notFound();
        return {
          status: 200,
          bytes: job.artifacts,
          contentType: 'application/zip',
          headers: { 'content-disposition': 'attachment; filename="artifacts.zip"' },
        };
      },
      { jobToken: true },
    ),
    route('POST', '/projects/:id/trigger/pipeline', (ctx) => trigger(ctx, render), {
      public: true,
    }),
    route('POST', '/projects/:id/ref/:ref/trigger/pipeline', (ctx) => trigger(ctx, render), {
      public: true,
    }),
  ];
}
