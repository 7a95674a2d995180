/**
 * `mr-agent demo` (docs/demo.md): the whole product, offline, in seconds. Starts
 * the GitLab stand-in and the scripted OpenAI-compatible model in-process on
 * free local ports, builds a project from the bundled sample repository with
 * a merge request whose new test fails, comments `/agent fix the failing
 * test`, lets the webhook bridge trigger the pipeline, and runs the job on a
 * checkout of the merge request's branch — the real pipeline, with real
 * commands, real git and real HTTP — while the terminal shows the progress
 * note as GitLab has it.
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { loadConfig } from '../config/load.ts';
import { createLogger, newTraceId, type Logger } from '../log/logger.ts';
import { Redactor } from '../log/redact.ts';
import { systemClock, type Clock } from '../core/clock.ts';
import type { RunHooks } from '../core/hooks.ts';
import { startScriptedOpenAiServer } from '../testkit/openai-server/server.ts';
import { builtinTools } from '../tools/index.ts';
import { LLM_SCENARIO, loadDemoAssets } from './assets.ts';
import { runAgentJob, type JobResult } from './job.ts';
import { diffThreads, printThreads, REVIEW_SCENARIO, reviewSceneScenario } from './review-scene.ts';
import { LiveView, watchNotes, type TerminalOut, type WatchedNotes } from './live-view.ts';
import {
  describeChecks,
  describeEnvironment,
  narratedLlm,
  narratedShell,
  narratedTools,
} from './narrate.ts';
import type { DemoResult } from './result.ts';
import { printIntro, printReport, storeArtifacts } from './report.ts';
import { commentAndTrigger, replyAndTrigger, type TriggeredJob } from './trigger.ts';
import { startDemoWorld, STORY, type DemoWorld } from './world.ts';

export interface DemoOptions {
  out: TerminalOut;
  /** Redraw the progress note in place (a TTY); plain lines otherwise. */
  live: boolean;
  color: boolean;
  /** Host variables the job's commands and git may use (PATH, HOME …). */
  hostEnv: Readonly<Record<string, string | undefined>>;
  /** Leave the temporary folder for inspection. */
  keep?: boolean;
  /** Configuration overrides for the job (`key=value`). */
  sets?: readonly string[];
  hooks?: Partial<RunHooks>;
  clock?: Clock;
  /** The `demo/` folder (default: the one shipped with the package). */
  assetsDir?: string;
  tmpRoot?: string;
  /** Cancels the run (Ctrl-C); the demo still cleans up. */
  signal?: AbortSignal;
  /**
   * `fix` (default): `/agent fix the failing test`. `review`: `/agent review`,
   * then the developer's `/agent fix this` in the first review thread.
   */
  scene?: DemoScene;
}

export type DemoScene = 'fix' | 'review';

export const DEMO_API_KEY = 'sk-demo-not-a-real-key';

function fileLogger(file: string, redactor: Redactor): { logger: Logger; close(): Promise<void> } {
  const stream = createWriteStream(file);
  const logger = createLogger({
    level: 'debug',
    format: 'text',
    traceId: newTraceId(),
    redactor,
    stream,
  });
  return {
    logger,
    close: () => new Promise((resolve) => stream.end(resolve)),
  };
}

async function checkout(world: DemoWorld, dir: string, hostEnv: DemoOptions['hostEnv']) {
  await execa(
    'git',
    ['clone', '--quiet', '--branch', STORY.sourceBranch, `file://${world.project.repoDir}`, dir],
    { env: { PATH: hostEnv.PATH ?? '', HOME: hostEnv.HOME ?? '' }, extendEnv: false },
  );
}

interface Session {
  options: DemoOptions;
  clock: Clock;
  dir: string;
  view: LiveView;
  logger: Logger;
  redactor: Redactor;
  closers: Array<() => Promise<unknown>>;
}

interface Stage {
  world: DemoWorld;
  llmUrl: string;
  llmServer: Awaited<ReturnType<typeof startScriptedOpenAiServer>>;
  triggered: TriggeredJob;
  checkoutDir: string;
}

/** The stand-in, the scripted model, the comment and the triggered pipeline, and the job's checkout. */
async function setTheStage(s: Session): Promise<Stage> {
  const { view, clock } = s;
  const assets = await loadDemoAssets(s.options.assetsDir);
  const review = s.options.scene === 'review';
  const comment = review ? STORY.reviewComment : STORY.comment;
  const world = await startDemoWorld({
    root: path.join(s.dir, 'gitlab'),
    sampleRepo: assets.sampleRepo,
    clock,
  });
  s.closers.push(() => world.standIn.close());
  const llmServer = await startScriptedOpenAiServer({
    scenario: review
      ? await reviewSceneScenario(assets.dir, assets.llmScenario)
      : assets.llmScenario,
    apiKey: DEMO_API_KEY,
  });
  s.closers.push(() => llmServer.close());
  printIntro(view, world, llmServer.url, assets.dir, {
    comment,
    scenarios: review ? [REVIEW_SCENARIO, LLM_SCENARIO] : [LLM_SCENARIO],
  });
  const triggered = await commentAndTrigger(world, { ...s, comment });
  s.closers.push(() => triggered.bridge.close());
  const checkoutDir = path.join(s.dir, 'job');
  await checkout(world, checkoutDir, s.options.hostEnv);
  world.standIn.model.setPipelineStatus(triggered.pipeline.id, 'running');
  view.line(
    `③ The bridge checked @${world.developer.username}'s role, put 👀 on the comment and triggered pipeline #${triggered.pipeline.id}.`,
  );
  view.line(
    `④ Job #${triggered.job.id} runs on a checkout of ${STORY.sourceBranch} (${view.dim(checkoutDir)}):`,
  );
  return { world, llmUrl: llmServer.url, llmServer, triggered, checkoutDir };
}

/** The CI job (`mr-agent ci` on the triggered pipeline), with the model behind the real OpenAI adapter and everything narrated. */
async function runJob(s: Session, stage: Stage) {
  const { options, view, clock, logger, redactor } = s;
  const { world, triggered } = stage;
  let watched: WatchedNotes | undefined;
  const job = await runAgentJob(
    {
      gitlabUrl: world.standIn.url,
      botToken: world.botToken.value,
      project: {
        id: world.project.id,
        path: world.project.path,
        defaultBranch: world.project.defaultBranch,
      },
      pipeline: triggered.pipeline,
      job: {
        id: triggered.job.id,
        url: `${world.standIn.url}/${world.project.path}/-/jobs/${triggered.job.id}`,
      },
      projectVariables: {
        MR_AGENT_LLM_BASE_URL: stage.llmUrl,
        MR_AGENT_LLM_MODEL: 'demo-model',
        OPENAI_API_KEY: DEMO_API_KEY,
        // our own sample project: its commands may also run as the agent where the demo is not
        // root (docs/security.md, "Commands run as another user")
        MR_AGENT_ISOLATION: 'accept-risk',
      },
      checkoutDir: stage.checkoutDir,
      hostEnv: options.hostEnv,
      sets: options.sets ?? [],
    },
    {
      clock,
      logger,
      redactor,
      ...(options.signal ? { signal: options.signal } : {}),
      observers: {
        llm: (llm) => narratedLlm(llm, view),
        tools: narratedTools(builtinTools(), view, () => clock.now()),
        ...(options.hooks ? { hooks: options.hooks } : {}),
        noteTarget: (target) => {
          watched = watchNotes(target, view, (kind) => `● ${kind} note posted on !1`);
          return watched.target;
        },
        setupShell: (shell) => narratedShell(shell, view, '    environment: '),
        onSetup: (outcome) => view.line(`    environment: ${describeEnvironment(outcome)}`),
      },
      onChecks: (checks) =>
        describeChecks(checks).forEach((l) => view.line(`    start checks: ${l}`)),
    },
  );
  view.release();
  return { job, watched };
}

/** The pipeline's end as GitLab shows it, and `.mr-agent/` kept as its job's artifacts. */
async function finishPipeline(stage: Stage, job: JobResult): Promise<void> {
  const ok = job.outcome.state === 'COMPLETE';
  stage.world.standIn.model.setPipelineStatus(
    stage.triggered.pipeline.id,
    ok ? 'success' : 'failed',
  );
  await storeArtifacts(stage.world, stage.triggered.job.id, job.reporting.paths.stateDir);
}

/**
 * The review scene's second half: the review's threads as GitLab shows them,
 * then @dana's `/agent fix this` in the first one, through the same webhook
 * bridge, and the triggered job's own checkout.
 */
async function fixThisScene(s: Session, first: Stage, review: JobResult): Promise<Stage> {
  const { view } = s;
  const { world } = first;
  const threads = diffThreads(world);
  view.line();
  view.line(
    view.bold(
      `Review: the run (${review.outcome.state}) posted ${threads.length} threads on the diff:`,
    ),
  );
  printThreads(view, threads);
  const thread = threads[0];
  if (!thread) throw new Error('internal: the review scene posted no thread to answer');
  view.line();
  view.line(
    `Reply: @${world.developer.username} answers the thread on ${thread.where}:  ${view.bold(STORY.fixThisReply)}`,
  );
  const triggered = await replyAndTrigger(world, first.triggered.bridge, {
    ...s,
    discussionId: thread.discussionId,
    body: STORY.fixThisReply,
  });
  const checkoutDir = path.join(s.dir, 'job-2');
  await checkout(world, checkoutDir, s.options.hostEnv);
  world.standIn.model.setPipelineStatus(triggered.pipeline.id, 'running');
  view.line(
    `Fix: the bridge triggered pipeline #${triggered.pipeline.id}; job #${triggered.job.id} takes the thread as its task (${view.dim(checkoutDir)}):`,
  );
  return { ...first, triggered, checkoutDir };
}

/** Runs the demo; resolves with what happened (the CLI prints it, tests assert on it). */
export async function runDemo(options: DemoOptions): Promise<DemoResult> {
  const clock = options.clock ?? systemClock;
  const started = clock.now();
  // a bad --set fails at once (exit 2), before anything is started
  await loadConfig({ env: {}, file: null, sets: options.sets ?? [] });
  const dir = await mkdtemp(path.join(options.tmpRoot ?? tmpdir(), 'mr-agent-demo-'));
  const redactor = new Redactor();
  redactor.add(DEMO_API_KEY);
  const log = fileLogger(path.join(dir, 'mr-agent.log'), redactor);
  const view = new LiveView(options.out, { live: options.live, color: options.color });
  const s: Session = { options, clock, dir, view, logger: log.logger, redactor, closers: [] };
  try {
    const first = await setTheStage(s);
    let ran = await runJob(s, first);
    await finishPipeline(first, ran.job);
    const reviewJob = options.scene === 'review' ? ran.job : undefined;
    const stage = reviewJob ? await fixThisScene(s, first, reviewJob) : first;
    if (stage !== first) ran = await runJob(s, stage);
    const { job, watched } = ran;
    const { world, triggered, llmServer } = stage;
    if (stage !== first) await finishPipeline(stage, job);
    const threads = options.scene === 'review' ? diffThreads(world) : undefined;
    if (threads) {
      view.line();
      view.line(view.bold(`The review threads on !${world.mergeRequest.iid} after both runs:`));
      printThreads(view, threads);
    }
    const result: DemoResult = {
      exitCode: job.exitCode,
      dir,
      kept: options.keep === true,
      jobId: triggered.job.id,
      gitlabUrl: world.standIn.url,
      llmUrl: llmServer.url,
      job,
      checkoutDir: stage.checkoutDir,
      remoteDir: world.project.repoDir,
      branch: STORY.sourceBranch,
      notes: watched?.bodies ?? new Map(),
      progressNoteId: watched?.progressId(),
      gitlabRequests: [...world.standIn.requests.entries],
      llmRequests: [...llmServer.requests],
      unusedReplies: llmServer.unusedReplies(),
      durationMs: clock.now() - started,
      ...(threads && reviewJob ? { threads, reviewJob } : {}),
    };
    await printReport(view, result, options.hostEnv.PATH ?? '');
    return result;
  } finally {
    for (const close of s.closers.reverse()) await close().catch(() => undefined);
    await log.close();
    if (!options.keep) await rm(dir, { recursive: true, force: true });
  }
}

export type { DemoResult } from './result.ts';
