import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { detectEnvironment } from '../phases/environment/detect-environment.ts';
import { selectEnvironment } from '../phases/environment/select.ts';
import { gitTrackedText } from '../shell/git-tracked.ts';
import type { Plan } from '../core/plan.ts';
import { t } from '../messages/catalog.ts';
import { addNotice } from '../core/progress/updates.ts';
import type { CarriedOut, CarryOutDeps } from './job-types.ts';
import { CHILD_PIPELINE_FILE, forwardedVariables, renderChildPipeline } from './child-pipeline.ts';
import { writeHandoff } from './handoff.ts';
import type { PreparedRun } from './prepare.ts';
import type { CiSession } from './session.ts';
import type { PlannedWork } from '../run/orchestrator.ts';

/** The image of the environment the run will use: the configured one, else the planner's choice checked against detection. */
async function chosenEnvironment(run: PreparedRun, plan: Plan) {
  const selection = selectEnvironment({
    planned: plan.selected_environment,
    detection: await detectEnvironment(run.context.projectDir, { tracked: gitTrackedText }),
    configured: run.config.environment.name,
  });
  return selection.name;
}

/** The plan job hands over: the hand-off and the child pipeline for the chosen environment. */
export async function handOver(
  run: PreparedRun,
  session: CiSession,
  work: PlannedWork,
  deps: CarryOutDeps,
): Promise<CarriedOut> {
  const environment = await chosenEnvironment(run, work.plan);
  await writeHandoff(run.context.projectDir, {
    version: 1,
    request: run.request,
    environment,
    from: {
      pipelineId: run.context.pipeline.id,
      jobId: run.context.job.id,
      ...(run.context.job.url ? { jobUrl: run.context.job.url } : {}),
    },
    task: { id: session.task.id, text: session.task.description },
    runId: session.runId,
    language: session.reporting.language,
    ...(session.reporting.publisher.noteId ? { noteId: session.reporting.publisher.noteId } : {}),
    work,
  });
  const file = path.join(run.context.projectDir, CHILD_PIPELINE_FILE);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(
    file,
    renderChildPipeline({
      environment,
      ci: run.config.ci,
      variables: forwardedVariables(run.env),
      origin: { pipelineId: run.context.pipeline.id, jobId: run.context.job.id },
      runner: run.context.runner,
      target: run.request.target,
    }),
  );
  // shown on the note until the child pipeline's job takes it over
  session.reporting.publisher.update((s) =>
    addNotice(s, t(s.language ?? 'en', 'notice.handedOver', { environment })),
  );
  await session.reporting.publisher.flush();
  deps.logger.info('work handed over', { environment, childPipeline: CHILD_PIPELINE_FILE });
  deps.stdout.write(`mr-agent: planned; the ${environment} job of the child pipeline carries on\n`);
  return { exitCode: 0 };
}
