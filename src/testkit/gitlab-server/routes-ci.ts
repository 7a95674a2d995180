/** Pipelines, jobs, job artifacts and the pipeline trigger API. */
import { DEVELOPER, projectOf, REPORTER } from './access.ts';
import { parseCiConfig, inputsProblem, pipelineName } from './ci-config.ts';
import { readBlob, revParse } from './git.ts';
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

/** `variables` and `inputs` are maps; Grape refuses anything else before the trigger is looked at. */
function stringMap(ctx: Ctx, key: 'variables' | 'inputs'): Record<string, string> {
  const raw = ctx.input[key] ?? {};
  const message =
    key === 'variables' ? 'variables needs to be a map of key-valued strings' : 'inputs is invalid';
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new HttpError(400, { message });
  const entries = Object.entries(raw as Record<string, unknown>);
  if (!entries.every(([, v]) => typeof v === 'string')) throw new HttpError(400, { message });
  return Object.fromEntries(entries) as Record<string, string>;
}

const ROLE_LEVEL: Record<ProjectRec['pipelineVariablesMinimumRole'], number> = {
  developer: 30,
  maintainer: 40,
  owner: 50,
  no_one_allowed: Number.POSITIVE_INFINITY,
};

/**
 * GitLab's pipeline-creation chain as far as the trigger API shows it: pipeline
 * variables need the project's minimum role (400, nothing created); inputs must
 * be declared by the `.gitlab-ci.yml` at `ref` (a config error: a failed
 * pipeline is kept and the answer is 422); the pipeline gets its `workflow: name`.
 */
async function createTriggered(
  ctx: Ctx,
  project: ProjectRec,
  trigger: { ownerId: number },
  request: { ref: string; variables: Record<string, string>; inputs: Record<string, string> },
) {
  const { ref, variables, inputs } = request;
  const level = ctx.model.accessLevel(project, trigger.ownerId);
  const setsVariables =
    Object.keys(variables).length > 0 || ctx.model.triggerPayloadCountsAsVariable;
  if (setsVariables && level < ROLE_LEVEL[project.pipelineVariablesMinimumRole])
    throw new HttpError(400, {
      message: { base: ['Insufficient permissions to set pipeline variables'] },
    });
  const text = (await readBlob(project.repoDir, ref, '.gitlab-ci.yml'))?.toString('utf8') ?? '';
  const config = parseCiConfig(text);
  const problem = inputsProblem(config, inputs);
  const base = { project, ref, source: 'trigger', variables, inputs, userId: trigger.ownerId };
  if (problem) {
    await ctx.model.createPipeline({ ...base, status: 'failed', jobs: [] });
    throw new HttpError(422, { message: { base: [problem] } });
  }
  const allVariables = { CI_PIPELINE_SOURCE: 'trigger', ...variables };
  const name = pipelineName(config, { inputs, variables: allVariables });
  return ctx.model.createPipeline({
    ...base,
    name,
    status: 'pending',
    jobs: ctx.model.triggeredJobs,
  });
}

/**
 * Whether GitLab creates a pipeline for `ref`: an existing branch or tag, or
 * a merge request ref of the project (`refs/merge-requests/<iid>/head`,
 * brought up to date with the source branch first — a fork's too). Nothing
 * else, not a commit SHA (GitLab: "Reference not found").
 */
async function pipelineRefExists(ctx: Ctx, project: ProjectRec, ref: string): Promise<boolean> {
  const mrRef = /^refs\/merge-requests\/(\d+)\/head$/.exec(ref);
  if (mrRef) {
    const mr = ctx.model.mergeRequests.find(
      (m) => m.projectId === project.id && m.iid === Number(mrRef[1]),
    );
    if (!mr) return false;
    await ctx.model.updateMergeRequestRef(mr);
    return (await revParse(project.repoDir, ref)) !== undefined;
  }
  const candidates = /^refs\/(heads|tags)\//.test(ref)
    ? [ref]
    : [`refs/heads/${ref}`, `refs/tags/${ref}`];
  for (const candidate of candidates)
    if ((await revParse(project.repoDir, candidate)) !== undefined) return true;
  return false;
}

/** `POST /projects/:id/(ref/:ref/)trigger/pipeline`: authenticated by the trigger token only. */
async function trigger(ctx: Ctx, render: Renderer) {
  if (ctx.req.headers['x-gitlab-event'] === 'Pipeline Hook') throw forbidden();
  const ref = ctx.params.ref ?? stringParam(ctx, 'ref', true)!;
  const token = stringParam(ctx, 'token', true)!;
  const variables = stringMap(ctx, 'variables');
  const inputs = stringMap(ctx, 'inputs');
  const project = ctx.model.findProject(ctx.params.id ?? '');
  const trigger = ctx.model.triggerTokens.find(
    (t) => t.value === token && t.projectId === project?.id,
  );
  if (!project || !trigger) throw notFound();
  if (!(await pipelineRefExists(ctx, project, ref)))
    throw new HttpError(400, { message: { base: ['Reference not found'] } });
  const { pipeline } = await createTriggered(ctx, project, trigger, { ref, variables, inputs });
  // a webhook pointed at the trigger URL: GitLab keeps its body as TRIGGER_PAYLOAD
  if (ctx.params.ref !== undefined && ctx.rawBody.length > 0)
    pipeline.variables.TRIGGER_PAYLOAD = ctx.rawBody.toString('utf8');
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
