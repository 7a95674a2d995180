// One real agent job for the benches: `node dist/mr-agent.mjs ci` as a child
// process, in a fresh clone of the merge request's branch, against the GitLab
// stand-in and the scripted OpenAI-compatible server over real HTTP, as a
// pipeline the webhook bridge triggered for `/agent <task>` would run it.
// Records when the first progress note appeared (as the stand-in saw it), the
// GitLab requests by route, what the model was sent, and the peak RSS of the
// command (through /usr/bin/time when the machine has it).
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import {
  seedScenario,
  startGitLabStandIn,
  type Scenario,
} from '../../src/testkit/gitlab-server/index.ts';
import type { GitLabStandIn } from '../../src/testkit/gitlab-server/server.ts';
import { promptTokens } from '../../src/testkit/openai-server/responses.ts';
import { startScriptedOpenAiServer } from '../../src/testkit/openai-server/server.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = path.join(ROOT, 'dist', 'mr-agent.mjs');
const TIME = '/usr/bin/time';
const KEY = 'sk-bench-3141';

export interface CiJobOptions {
  /** Scripted model replies (the scenario's `replies`). */
  replies: unknown[];
  /** Files of the project (the default branch and the merge request's branch). */
  files?: Record<string, string>;
  /** The task of the `/agent` comment. */
  task: string;
  /** Comments on the merge request before the `/agent` one (by the developer). */
  earlierComments?: string[];
  /** More job variables (they win over the defaults). */
  variables?: Record<string, string>;
  /** The command to run (default: dist/mr-agent.mjs). */
  bin?: string;
  /** Node options before the command (e.g. `--import` of a module-load recorder). */
  nodeArgs?: string[];
  /** Called once the project exists, before the job's checkout (threads to open, files to push). */
  before?(world: CiJobWorld): Promise<void>;
  /** Called once the job ended with exit code 0, before the stand-in closes. */
  after?(world: CiJobWorld): Promise<void>;
}

/** The stand-in and its seeded scenario, for `before` and `after`. */
export interface CiJobWorld {
  standIn: Awaited<ReturnType<typeof startGitLabStandIn>>;
  s: Awaited<ReturnType<typeof seedScenario>>;
}

export interface LlmCall {
  purpose: string;
  /** Prompt tokens as the server counts them: messages, tool schemas and response format. */
  promptTokens: number;
}

export interface CiJobResult {
  code: number;
  stderr: string;
  /** From spawning the command to the first progress note on the merge request. */
  firstNoteMs: number | undefined;
  /** CPU time the command (its node process) had used when the note appeared (Linux only). */
  firstNoteCpuMs: number | undefined;
  wallMs: number;
  /** Peak resident set size of the command, when /usr/bin/time could measure it. */
  maxRssMb: number | undefined;
  /** GitLab API requests by `METHOD route`, as the stand-in counted them. */
  requests: Record<string, number>;
  calls: LlmCall[];
  /** Every GitLab request, ms after spawning the command, in order. */
  timeline: { atMs: number; what: string }[];
  /** When the stand-in created the progress note (ms since the epoch, wall clock). */
  noteCreatedAt: number | undefined;
  /** The job's `.mr-agent/result.json`, parsed (undefined when it wrote none). */
  result: unknown;
  /** The bodies of the notes the agent left on the merge request, oldest first (as last edited). */
  botNotes: string[];
}

/** Runs one job; throws when the job did not finish with exit code 0. */
/**
 * What GitLab gives the agent job of a pipeline the bridge triggered on the
 * stand-in's merge request, with the bot's token, JSON logs and the scripted model.
 */
export function triggeredJobVariables(
  standIn: GitLabStandIn,
  s: Scenario,
  job: {
    dir: string;
    home: string;
    branch: string;
    pipelineId: number;
    jobId: number;
    llmUrl: string;
    llmKey?: string;
  },
): Record<string, string> {
  return {
    PATH: process.env['PATH'] ?? '',
    HOME: job.home,
    CI: 'true',
    CI_API_V4_URL: `${standIn.url}/api/v4`,
    CI_SERVER_URL: standIn.url,
    CI_PROJECT_ID: String(s.project.id),
    CI_PROJECT_PATH: s.project.path,
    CI_PROJECT_DIR: job.dir,
    CI_DEFAULT_BRANCH: s.project.defaultBranch,
    CI_COMMIT_REF_NAME: job.branch,
    CI_PIPELINE_ID: String(job.pipelineId),
    CI_JOB_ID: String(job.jobId),
    CI_JOB_URL: `${standIn.url}/${s.project.path}/-/jobs/${job.jobId}`,
    CI_PIPELINE_SOURCE: 'trigger',
    GITLAB_USER_ID: String(s.maintainer.id),
    MR_AGENT_GITLAB_TOKEN: s.botToken.value,
    MR_AGENT_LOG_FORMAT: 'json',
    OPENAI_API_KEY: job.llmKey ?? KEY,
    OPENAI_BASE_URL: job.llmUrl,
    MR_AGENT_LLM_MODEL: 'scripted-model',
  };
}

export async function runCiJob(options: CiJobOptions): Promise<CiJobResult> {
  const standIn = await startGitLabStandIn();
  const work = mkdtempSync(path.join(os.tmpdir(), 'mr-agent-bench-job-'));
  const llm = await startScriptedOpenAiServer({
    apiKey: KEY,
    scenario: { replies: options.replies } as Parameters<
      typeof startScriptedOpenAiServer
    >[0]['scenario'],
  });
  try {
    const s = await seedScenario(standIn.model, options.files ? { files: options.files } : {});
    await options.before?.({ standIn, s });
    const dir = path.join(work, 'job');
    const branch = s.mergeRequest.sourceBranch;
    execFileSync('git', ['clone', '-q', '-b', branch, s.project.repoDir, dir]);
    for (const body of options.earlierComments ?? []) {
      standIn.model.addNote({ on: s.mergeRequest, body, authorId: s.developer.id });
    }
    const note = standIn.model.addNote({
      on: s.mergeRequest,
      body: `/agent ${options.task}`,
      authorId: s.developer.id,
    });
    const variables = {
      MR_AGENT_SOURCE: 'note',
      MR_AGENT_COMMAND: '',
      MR_AGENT_TASK: options.task,
      MR_AGENT_NOTE_ID: String(note.id),
      MR_AGENT_MR_IID: String(s.mergeRequest.iid),
      MR_AGENT_TRIGGERED_BY: String(s.developer.id),
    };
    const { pipeline, jobs } = await standIn.model.createPipeline({
      project: s.project,
      ref: branch,
      source: 'trigger',
      userId: s.maintainer.id,
      status: 'running',
      variables,
    });
    const env: Record<string, string> = {
      ...triggeredJobVariables(standIn, s, {
        dir,
        home: work,
        branch,
        pipelineId: pipeline.id,
        jobId: jobs[0]!.id,
        llmUrl: llm.url,
      }),
      MR_AGENT_ENVIRONMENT_SETUP: 'false',
      MR_AGENT_TEST_COMMAND: 'true',
      REFLECTION_INTERVAL: '0',
      REPLANNING_ENABLED: 'false',
      MR_AGENT_REVIEW_ENABLED: 'false',
      ...variables,
      ...options.variables,
    };
    const firstNote = () =>
      standIn.model.notes.some(
        (n) => n.authorId === s.bot.id && n.body.includes('mr-agent:progress'),
      );
    const command = [...(options.nodeArgs ?? []), options.bin ?? BIN, 'ci', '--step', 'all'];
    const run = await spawnJob(dir, env, command, firstNote);
    if (run.code !== 0) throw new Error(`the job exited ${run.code}:\n${run.stderr.slice(-3000)}`);
    await options.after?.({ standIn, s });
    const calls = llm.requests.map((r) => ({
      purpose: r.purpose ?? '(none)',
      promptTokens: promptTokens(r.body as Parameters<typeof promptTokens>[0]),
    }));
    const timeline = standIn.requests.entries
      .map((e) => ({ atMs: (e.at ?? 0) - run.startedAt, what: `${e.method} ${e.route || e.path}` }))
      .sort((a, b) => a.atMs - b.atMs);
    const noteCreatedAt = standIn.requests.entries.find(
      (e) => e.method === 'POST' && e.input?.includes('mr-agent:progress'),
    )?.at;
    const { startedAt: _, ...result } = run;
    let resultJson: unknown;
    try {
      resultJson = JSON.parse(readFileSync(path.join(dir, '.mr-agent', 'result.json'), 'utf8'));
    } catch {
      resultJson = undefined;
    }
    return {
      ...result,
      requests: standIn.requests.byRoute(),
      calls,
      timeline,
      noteCreatedAt,
      result: resultJson,
      botNotes: standIn.model.notes.filter((n) => n.authorId === s.bot.id).map((n) => n.body),
    };
  } finally {
    await llm.close();
    await standIn.close();
    rmSync(work, { recursive: true, force: true });
  }
}

async function spawnJob(
  dir: string,
  env: Record<string, string>,
  nodeCommand: string[],
  firstNote: () => boolean,
): Promise<
  Pick<
    CiJobResult,
    'code' | 'stderr' | 'firstNoteMs' | 'firstNoteCpuMs' | 'wallMs' | 'maxRssMb'
  > & {
    startedAt: number;
  }
> {
  const rssFile = path.join(path.dirname(dir), 'rss');
  const command = [process.execPath, ...nodeCommand];
  const timed = existsSync(TIME);
  const [file, ...args] = timed ? [TIME, '-f', '%M', '-o', rssFile, ...command] : command;
  const start = performance.now();
  const startedAt = Date.now();
  const child = spawn(file!, args, { cwd: dir, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  let firstNoteMs: number | undefined;
  let firstNoteCpuMs: number | undefined;
  // The stand-in runs in this process: look for the note between its requests.
  const watch = setInterval(() => {
    if (firstNoteMs !== undefined || !firstNote()) return;
    firstNoteMs = performance.now() - start;
    firstNoteCpuMs = cpuMsOf(child.pid, timed);
  }, 1);
  const code = await new Promise<number>((resolve) =>
    child.on('close', (exit) => resolve(exit ?? 1)),
  );
  const wallMs = performance.now() - start;
  clearInterval(watch);
  const maxRssMb = timed ? Number(readFileSync(rssFile, 'utf8').trim()) / 1024 : undefined;
  return { code, stderr, firstNoteMs, firstNoteCpuMs, wallMs, maxRssMb, startedAt };
}

/**
 * CPU time (user + system, ms) the command's node process has used so far,
 * from /proc (Linux; under /usr/bin/time the node process is its child).
 */
function cpuMsOf(pid: number | undefined, timed: boolean): number | undefined {
  if (pid === undefined || !existsSync(`/proc/${pid}/stat`)) return undefined;
  try {
    const node = timed
      ? readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(' ')[0]
      : String(pid);
    const fields = readFileSync(`/proc/${node}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // after "pid (comm) ": state is field 0, utime 11, stime 12, in clock ticks (100 a second)
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}
