/**
 * How the demo's run starts, as it does in production (docs/triggers.md): a person
 * comments `/agent …` through the GitLab API, the stand-in sends its
 * Comments webhook to the webhook bridge (`mr-agent serve`), and the bridge
 * checks the author, claims the comment with 👀 and triggers the pipeline
 * whose job then runs the agent.
 */
import { loadConfig } from '../config/load.ts';
import { createGitLabClient } from '../gitlab/gitbeaker-adapter.ts';
import type { Logger } from '../log/logger.ts';
import type { Redactor } from '../log/redact.ts';
import type { Clock } from '../core/clock.ts';
import type { JobRec, PipelineRec } from '../testkit/gitlab-server/index.ts';
import { startBridge } from '../trigger/bridge.ts';
import { bridgeGitLabFromPort } from '../commands/gitlab-bridge.ts';
import type { RunningBridge } from '../trigger/server.ts';
import type { DemoWorld } from './world.ts';

export interface TriggeredJob {
  bridge: RunningBridge;
  noteId: number;
  pipeline: PipelineRec;
  job: JobRec;
  /** The pipeline's variables, as the CI job sees them (`MR_AGENT_TASK` …). */
  variables: Record<string, string>;
}

const WEBHOOK_SECRET = 'demo-webhook-secret';

async function settle(world: DemoWorld, bridge: RunningBridge): Promise<void> {
  // deliveries cause API calls and those may cause deliveries: wait until both are quiet
  for (let i = 0; i < 5; i++) {
    await world.standIn.hooks.idle();
    await bridge.idle();
  }
}

function clientFor(world: DemoWorld, deps: { logger: Logger; clock: Clock }) {
  return (token: string) =>
    createGitLabClient({ url: world.standIn.url, token, clock: deps.clock, logger: deps.logger });
}

/** The pipeline the bridge triggered for a note, once the webhook and the bridge are quiet. */
async function triggeredFor(
  world: DemoWorld,
  bridge: RunningBridge,
  noteId: number,
): Promise<Omit<TriggeredJob, 'bridge'>> {
  await settle(world, bridge);
  const pipeline = world.standIn.model.pipelines.find(
    (p) => p.source === 'trigger' && p.variables.MR_AGENT_NOTE_ID === String(noteId),
  );
  const job = pipeline && world.standIn.model.jobs.find((j) => j.pipelineId === pipeline.id);
  if (!pipeline || !job)
    throw new Error('internal: the webhook bridge did not trigger a pipeline for the comment');
  return { noteId, pipeline, job, variables: { ...pipeline.variables } };
}

/** Starts the bridge, posts the comment as the developer and returns the triggered job. */
export async function commentAndTrigger(
  world: DemoWorld,
  deps: { logger: Logger; redactor: Redactor; clock: Clock; comment: string },
): Promise<TriggeredJob> {
  const env = {
    MR_AGENT_GITLAB_URL: world.standIn.url,
    MR_AGENT_GITLAB_TOKEN: world.botToken.value,
    MR_AGENT_WEBHOOK_SECRET: WEBHOOK_SECRET,
    MR_AGENT_TRIGGER_TOKEN: world.triggerToken,
  };
  for (const secret of [world.botToken.value, WEBHOOK_SECRET, world.triggerToken])
    deps.redactor.add(secret);
  const { config } = await loadConfig({
    env,
    file: null,
    // the sample project has no `.gitlab-ci.yml` header declaring pipeline inputs (#21)
    sets: ['serve.port=0', 'serve.host=127.0.0.1', 'trigger.pass_as=variables'],
  });
  const client = clientFor(world, deps);
  const bridge = await startBridge({
    config,
    gitlab: bridgeGitLabFromPort(client(world.botToken.value)),
    logger: deps.logger.child({ component: 'bridge' }),
    redactor: deps.redactor,
  });
  try {
    world.standIn.hooks.add(world.project, `${bridge.url}/webhook`, WEBHOOK_SECRET);
    const note = await client(world.developerToken.value).createNote(
      world.project.id,
      { type: 'merge_request', iid: world.mergeRequest.iid },
      deps.comment,
    );
    return { bridge, ...(await triggeredFor(world, bridge, note.id)) };
  } catch (error) {
    await bridge.close();
    throw error;
  }
}

/**
 * A reply the developer writes in a thread of the merge request (a diff
 * thread: GitLab's Comments event is a DiffNote with the thread's position),
 * through the bridge that is already listening; returns the triggered job.
 */
export async function replyAndTrigger(
  world: DemoWorld,
  bridge: RunningBridge,
  deps: { logger: Logger; clock: Clock; discussionId: string; body: string },
): Promise<TriggeredJob> {
  const note = await clientFor(
    world,
    deps,
  )(world.developerToken.value).replyToDiscussion(
    world.project.id,
    { type: 'merge_request', iid: world.mergeRequest.iid },
    deps.discussionId,
    deps.body,
  );
  return { bridge, ...(await triggeredFor(world, bridge, note.id)) };
}
