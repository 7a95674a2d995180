/**
 * `mr-agent demo` (SPEC A7): the whole product, offline, in seconds. Starts
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
import { createOpenAiLlm } from '../llm/openai-llm.ts';
import { createLogger, newTraceId, type Logger } from '../log/logger.ts';
import { Redactor } from '../log/redact.ts';
import { systemClock, type Clock } from '../run/clock.ts';
import type { RunHooks } from '../run/hooks.ts';
import type { LoggedRequest } from '../testkit/gitlab-server/index.ts';
import {
  startScriptedOpenAiServer,
  type LoggedRequest as LlmRequest,
} from '../testkit/openai-server/server.ts';
import { builtinTools } from '../tools/index.ts';
import { loadDemoAssets } from './assets.ts';
import { runAgentJob, type JobResult } from './job.ts';
import { LiveView, watchNotes, type TerminalOut } from './live-view.ts';
import { describeChecks, describeSetup, narratedLlm, narratedTools } from './narrate.ts';
import { printIntro, printReport, storeArtifacts } from './report.ts';
import { commentAndTrigger } from './trigger.ts';
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
}

export interface DemoResult {
  exitCode: number;
  dir: string;
  kept: boolean;
  jobId: number;
  /** Where the stand-in and the scripted model listened. */
  gitlabUrl: string;
  llmUrl: string;
  job: JobResult;
  checkoutDir: string;
  /** The project's bare repository (the remote the change was pushed to). */
  remoteDir: string;
  branch: string;
  notes: Map<string, string>;
  progressNoteId: string | undefined;
  gitlabRequests: LoggedRequest[];
  llmRequests: LlmRequest[];
  unusedReplies: string[];
  durationMs: number;
}

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

/** Runs the demo; resolves with what happened (the CLI prints it, tests assert on it). */
export async function runDemo(options: DemoOptions): Promise<DemoResult> {
  const clock = options.clock ?? systemClock;
  const started = clock.now();
  // a bad --set fails at once (exit 2), before anything is started
  await loadConfig({ env: {}, file: null, sets: options.sets ?? [] });
  const dir = await mkdtemp(path.join(options.tmpRoot ?? tmpdir(), 'mr-agent-demo-'));
  const view = new LiveView(options.out, { live: options.live, color: options.color });
  const redactor = new Redactor();
  redactor.add(DEMO_API_KEY);
  const log = fileLogger(path.join(dir, 'mr-agent.log'), redactor);
  const { logger } = log;
  const closers: Array<() => Promise<unknown>> = [];
  try {
    const assets = await loadDemoAssets(options.assetsDir);
    const world = await startDemoWorld({
      root: path.join(dir, 'gitlab'),
      sampleRepo: assets.sampleRepo,
      clock,
    });
    closers.push(() => world.standIn.close());
    const llmServer = await startScriptedOpenAiServer({
      scenario: assets.llmScenario,
      apiKey: DEMO_API_KEY,
    });
    closers.push(() => llmServer.close());
    printIntro(view, world, llmServer.url, assets.dir);

    const triggered = await commentAndTrigger(world, {
      logger,
      redactor,
      clock,
      comment: STORY.comment,
    });
    closers.push(() => triggered.bridge.close());
    const checkoutDir = path.join(dir, 'job');
    await checkout(world, checkoutDir, options.hostEnv);
    world.standIn.model.setPipelineStatus(triggered.pipeline.id, 'running');
    const jobUrl = `${world.standIn.url}/${world.project.path}/-/jobs/${triggered.job.id}`;
    view.line(
      `③ The bridge checked @${world.developer.username}'s role, put 👀 on the comment and triggered pipeline #${triggered.pipeline.id}.`,
    );
    view.line(
      `④ Job #${triggered.job.id} runs on a checkout of ${STORY.sourceBranch} (${view.dim(checkoutDir)}):`,
    );

    const env = {
      ...triggered.variables,
      MR_AGENT_LLM_BASE_URL: llmServer.url,
      MR_AGENT_LLM_MODEL: 'demo-model',
      OPENAI_API_KEY: DEMO_API_KEY,
    };
    const llmConfig = await loadConfig({ env, file: null, sets: options.sets ?? [] });
    const llm = createOpenAiLlm(llmConfig.config, { env, logger, clock });
    const notes = { watched: undefined as ReturnType<typeof watchNotes> | undefined };
    const job = await runAgentJob(
      {
        gitlabUrl: world.standIn.url,
        botToken: world.botToken.value,
        projectId: world.project.id,
        mergeRequestIid: world.mergeRequest.iid,
        variables: env,
        ci: {
          jobId: String(triggered.job.id),
          pipelineId: String(triggered.pipeline.id),
          jobUrl,
        },
        checkoutDir,
        hostEnv: options.hostEnv,
        sets: options.sets ?? [],
      },
      {
        llm: narratedLlm(llm, view),
        clock,
        logger,
        redactor,
        tools: narratedTools(builtinTools(), view, () => clock.now()),
        ...(options.hooks ? { hooks: options.hooks } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
        noteTarget: (target) => {
          notes.watched = watchNotes(target, view, (kind) => `● ${kind} note posted on !1`);
          return notes.watched.target;
        },
        onChecks: (checks) =>
          describeChecks(checks).forEach((l) => view.line(`    start checks: ${l}`)),
        onSetup: (result) =>
          describeSetup(result).forEach((l) => view.line(`    environment: ${l}`)),
      },
    );
    view.release();
    const ok = job.outcome.state === 'COMPLETE';
    world.standIn.model.setPipelineStatus(triggered.pipeline.id, ok ? 'success' : 'failed');
    await storeArtifacts(world, triggered.job.id, job.reporting.paths.stateDir);

    const result: DemoResult = {
      exitCode: job.outcome.exitCode,
      dir,
      kept: options.keep === true,
      jobId: triggered.job.id,
      gitlabUrl: world.standIn.url,
      llmUrl: llmServer.url,
      job,
      checkoutDir,
      remoteDir: world.project.repoDir,
      branch: STORY.sourceBranch,
      notes: notes.watched?.bodies ?? new Map(),
      progressNoteId: notes.watched?.progressId(),
      gitlabRequests: [...world.standIn.requests.entries],
      llmRequests: [...llmServer.requests],
      unusedReplies: llmServer.unusedReplies(),
      durationMs: clock.now() - started,
    };
    await printReport(view, result, options.hostEnv.PATH ?? '');
    return result;
  } finally {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    await log.close();
    if (!options.keep) await rm(dir, { recursive: true, force: true });
  }
}
