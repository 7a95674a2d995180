import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { main } from '../../src/cli/main.ts';
import type { CliIo } from '../../src/cli/io.ts';
import {
  seedScenario,
  startGitLabStandIn,
  type GitLabStandIn,
  type Scenario,
} from '../../src/testkit/gitlab-server/index.ts';
import type { NoteRec, PipelineRec } from '../../src/testkit/gitlab-server/records.ts';
import {
  startScriptedOpenAiServer,
  type ScriptedOpenAiServer,
} from '../../src/testkit/openai-server/server.ts';
import { action, assessment, planWith } from '../support/plans.ts';

/**
 * A GitLab project in the stand-in, with pipelines whose agent jobs run
 * `mr-agent ci` in-process on fresh clones of the merge request's branch,
 * each against its own scripted OpenAI-compatible server over HTTP. A job's
 * `.mr-agent/` becomes its artifacts, as the component's `artifacts:` does.
 */
export const LLM_KEY = 'sk-carry-out-secret-7311';
const REPO_ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(REPO_ROOT, 'src/cli/bin.ts');

/** The file the scripted runs write. */
export const FAREWELL = 'export function farewell(name) {\n  return `Bye, ${name}!`;\n}\n';

/** The one-action plan of the scripted runs: add farewell(). */
export const FAREWELL_PLANNING = {
  purpose: 'planning',
  json: planWith([action('task_1', 'Add farewell()')], ['farewell() exists']),
};

/** The work after that plan: write src/farewell.js, done, criteria met. */
export const FAREWELL_WORK = [
  {
    purpose: 'execution',
    tool_calls: [{ name: 'write_file', arguments: { path: 'src/farewell.js', content: FAREWELL } }],
  },
  { purpose: 'execution', content: 'DONE: added farewell()' },
  { purpose: 'completion', json: assessment(true) },
];

/** A whole one-action run: the plan, then the work. */
export const FAREWELL_RUN = [FAREWELL_PLANNING, ...FAREWELL_WORK];

/**
 * Where a job of the stand-in's project runs: its folder and home; by default
 * a triggered pipeline 900 (job 901) on the merge request's branch, started by the maintainer.
 */
export interface JobPlace {
  dir: string;
  home: string;
  ref?: string;
  pipelineId?: number;
  jobId?: number;
  source?: string;
  userId?: number;
}

/** The variables GitLab gives an agent job of the stand-in's project, with the bot's token and JSON logs. */
export function standInJobVariables(
  standIn: GitLabStandIn,
  s: Scenario,
  place: JobPlace,
): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: place.home,
    CI_API_V4_URL: `${standIn.url}/api/v4`,
    CI_SERVER_URL: standIn.url,
    CI_PROJECT_ID: String(s.project.id),
    CI_PROJECT_PATH: s.project.path,
    CI_PROJECT_DIR: place.dir,
    CI_DEFAULT_BRANCH: s.project.defaultBranch,
    CI_COMMIT_REF_NAME: place.ref ?? s.mergeRequest.sourceBranch,
    CI_PIPELINE_ID: String(place.pipelineId ?? 900),
    CI_JOB_ID: String(place.jobId ?? 901),
    CI_PIPELINE_SOURCE: place.source ?? 'trigger',
    GITLAB_USER_ID: String(place.userId ?? s.maintainer.id),
    MR_AGENT_GITLAB_TOKEN: s.botToken.value,
    MR_AGENT_LOG_FORMAT: 'json',
  };
}

/**
 * The scripted model (when there is one), and a run the one-action scripts
 * answer: no setup, a test command that checks the farewell, no reflection
 * checkpoints, replanning or reviews (the scripts answer none of them).
 */
export function scriptedRunVariables(
  llm: { url: string } | undefined,
  key: string,
): Record<string, string> {
  return {
    OPENAI_API_KEY: key,
    ...(llm ? { OPENAI_BASE_URL: llm.url } : {}),
    MR_AGENT_LLM_MODEL: 'scripted-model',
    MR_AGENT_ENVIRONMENT_SETUP: 'false',
    MR_AGENT_TEST_COMMAND: 'test -f src/farewell.js',
    REFLECTION_INTERVAL: '0',
    REPLANNING_ENABLED: 'false',
    MR_AGENT_REVIEW_ENABLED: 'false',
  };
}

export interface JobRun {
  code: number;
  stdout: string;
  stderr: string;
  dir: string;
  jobId: number;
  pipelineId: number;
  llm: ScriptedOpenAiServer;
}

export interface JobOptions {
  replies: unknown[];
  variables: Record<string, string>;
  step?: 'all' | 'plan' | 'run';
  /** Run `mr-agent ci` as a child process (real signals) instead of in-process. */
  childProcess?: boolean;
  /** With `childProcess`: under a job shell that holds the job's variables too, as on a runner. */
  jobShell?: boolean;
  /** The job whose `.mr-agent/` artifacts this job gets (`needs:` the plan job). */
  artifactsFrom?: JobRun;
  /** The pipeline's ref (default: the merge request's source branch); the job's checkout is on it. */
  ref?: string;
  /** Runs the job of this pipeline (one a trigger created) instead of a new one; its ref wins. */
  pipeline?: PipelineRec;
  /**
   * The job's secrets come from the project's CI/CD variables as GitLab gives
   * them to this pipeline (protected ones only on a protected ref), not from
   * the test world.
   */
  projectVariables?: boolean;
  /** Called once the job started, with a way to send it a signal. */
  whileRunning?: (job: { signal(name: string): void; llm: ScriptedOpenAiServer }) => Promise<void>;
}

export class JobWorld {
  private readonly roots: string[] = [];
  private readonly servers: ScriptedOpenAiServer[] = [];

  private constructor(
    readonly standIn: GitLabStandIn,
    readonly s: Scenario,
  ) {}

  static async start(): Promise<JobWorld> {
    const standIn = await startGitLabStandIn();
    return new JobWorld(standIn, await seedScenario(standIn.model));
  }

  async close(): Promise<void> {
    await this.standIn.close();
    for (const server of this.servers) await server.close();
    for (const root of this.roots) rmSync(root, { recursive: true, force: true });
  }

  git(cwd: string, ...args: string[]): string {
    return execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
  }

  /** A comment on the merge request, as the developer (what the bridge's variables point at). */
  comment(body: string): number {
    return this.standIn.model.addNote({
      on: this.s.mergeRequest,
      body,
      authorId: this.s.developer.id,
    }).id;
  }

  /** The variables the webhook bridge triggers the pipeline with for `/agent <command> <task>`. */
  bridgeVariables(command: string, task: string): Record<string, string> {
    const noteId = this.comment(`/agent ${command} ${task}`.trim());
    return {
      MR_AGENT_SOURCE: 'note',
      MR_AGENT_COMMAND: command,
      MR_AGENT_TASK: task,
      MR_AGENT_NOTE_ID: String(noteId),
      MR_AGENT_MR_IID: String(this.s.mergeRequest.iid),
      MR_AGENT_TRIGGERED_BY: String(this.s.developer.id),
    };
  }

  private env(
    dir: string,
    ids: { pipeline: number; job: number; ref: string; pipelineCreatedAt: string },
    llm: ScriptedOpenAiServer,
  ): Record<string, string> {
    const { s, standIn } = this;
    return {
      ...standInJobVariables(standIn, s, {
        dir,
        home: path.dirname(dir),
        ref: ids.ref,
        pipelineId: ids.pipeline,
        jobId: ids.job,
      }),
      CI_JOB_URL: `${standIn.url}/${s.project.path}/-/jobs/${ids.job}`,
      // as GitLab sets them: the job starts now, with the default timeout of an hour
      CI_PIPELINE_CREATED_AT: ids.pipelineCreatedAt,
      CI_JOB_STARTED_AT: new Date().toISOString(),
      CI_JOB_TIMEOUT: '3600',
      ...scriptedRunVariables(llm, LLM_KEY),
      // our own test world: commands run on a machine without root too
      MR_AGENT_ISOLATION: 'accept-risk',
    };
  }

  /** Runs one agent job of a new pipeline; its `.mr-agent/` is kept as the job's artifacts. */
  async job(options: JobOptions): Promise<JobRun> {
    const root = mkdtempSync(path.join(os.tmpdir(), 'mr-agent-carry-out-'));
    this.roots.push(root);
    const dir = path.join(root, 'job');
    const ref = options.pipeline?.ref ?? options.ref ?? this.s.mergeRequest.sourceBranch;
    this.checkout(ref, dir);
    if (options.artifactsFrom) {
      cpSync(path.join(options.artifactsFrom.dir, '.mr-agent'), path.join(dir, '.mr-agent'), {
        recursive: true,
      });
    }
    const llm = await startScriptedOpenAiServer({
      apiKey: LLM_KEY,
      scenario: { replies: options.replies } as Parameters<
        typeof startScriptedOpenAiServer
      >[0]['scenario'],
    });
    this.servers.push(llm);
    const { pipeline, jobs } = await this.pipelineFor(options, ref);
    const jobId = jobs[0]!.id;
    const env = this.env(
      dir,
      { pipeline: pipeline.id, job: jobId, ref, pipelineCreatedAt: pipeline.createdAt },
      llm,
    );
    if (options.projectVariables) {
      delete env.MR_AGENT_GITLAB_TOKEN;
      delete env.OPENAI_API_KEY;
    }
    Object.assign(env, this.standIn.model.jobVariables(pipeline), options.variables);
    const argv = ['ci', '--step', options.step ?? 'all'];
    const { code, stdout, stderr } = options.childProcess
      ? await this.runChild(argv, env, options, llm)
      : await this.runInProcess(argv, env, dir, options, llm);
    this.keepArtifacts(jobId, dir);
    // the job is over, and with it its pipeline (one job a pipeline here)
    this.standIn.model.setPipelineStatus(pipeline.id, code === 0 ? 'success' : 'failed');
    return { code, stdout, stderr, dir, jobId, pipelineId: pipeline.id, llm };
  }

  private async runInProcess(
    argv: string[],
    env: Record<string, string>,
    cwd: string,
    options: JobOptions,
    llm: ScriptedOpenAiServer,
  ) {
    let stdout = '';
    let stderr = '';
    const handlers: Array<(signal: string) => void> = [];
    const io: CliIo = {
      argv,
      env,
      cwd,
      stdout: { write: (t: string) => (stdout += t) },
      stderr: { write: (t: string) => (stderr += t) },
      readStdin: async () => undefined,
      onSignal: (handler) => {
        handlers.push(handler);
        return () => handlers.splice(handlers.indexOf(handler), 1);
      },
    };
    const running = main(io);
    await options.whileRunning?.({ signal: (name) => handlers.forEach((h) => h(name)), llm });
    const code = await running;
    return { code, stdout, stderr };
  }

  /** `src/cli/bin.ts` in a child process: the process's own signal handling. */
  private async runChild(
    argv: string[],
    env: Record<string, string>,
    options: JobOptions,
    llm: ScriptedOpenAiServer,
  ) {
    let stdout = '';
    let stderr = '';
    const command = [process.execPath, '--import', 'tsx', BIN, ...argv];
    const child = spawn(
      options.jobShell ? 'sh' : command[0]!,
      options.jobShell ? ['-c', '"$@"; exit $?', 'job-shell', ...command] : command.slice(1),
      {
        cwd: REPO_ROOT,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const exit = new Promise<number>((resolve) =>
      child.on('close', (code, signal) => resolve(code ?? (signal ? -1 : 1))),
    );
    await options.whileRunning?.({
      signal: (name) => child.kill(name as NodeJS.Signals),
      llm,
    });
    return { code: await exit, stdout, stderr };
  }

  private async pipelineFor(options: JobOptions, ref: string) {
    const model = this.standIn.model;
    if (!options.pipeline)
      return model.createPipeline({
        project: this.s.project,
        ref,
        source: 'trigger',
        userId: this.s.maintainer.id,
        status: 'running',
        variables: options.variables,
      });
    const pipeline = options.pipeline;
    model.setPipelineStatus(pipeline.id, 'running');
    return { pipeline, jobs: model.jobs.filter((j) => j.pipelineId === pipeline.id) };
  }

  /** What the runner checks out: a branch, or any other ref (a merge request's) detached. */
  private checkout(ref: string, dir: string): void {
    const repo = this.s.project.repoDir;
    if (!ref.startsWith('refs/')) {
      execFileSync('git', ['clone', '-q', '-b', ref, repo, dir]);
      return;
    }
    execFileSync('git', ['clone', '-q', '--no-checkout', repo, dir]);
    this.git(dir, 'fetch', '-q', 'origin', `+${ref}:refs/pipeline-ref`);
    this.git(dir, 'checkout', '-q', '--detach', 'refs/pipeline-ref');
  }

  /** Stores `dir`'s `.mr-agent/` as the job's artifacts (again, after a test changed it). */
  keepArtifacts(jobId: number, dir: string): void {
    const files: Record<string, Uint8Array> = {};
    const walk = (rel: string) => {
      const full = path.join(dir, rel);
      for (const name of readdirSync(full)) {
        const child = path.posix.join(rel, name);
        if (statSync(path.join(dir, child)).isDirectory()) walk(child);
        else files[child] = readFileSync(path.join(dir, child));
      }
    };
    try {
      walk('.mr-agent');
    } catch {
      return;
    }
    this.standIn.model.setJobArtifacts(jobId, files);
  }

  /** The bot's progress notes on the merge request, oldest first. */
  progressNotes(): NoteRec[] {
    return this.standIn.model.notes.filter(
      (n) => n.authorId === this.s.bot.id && n.body.includes('mr-agent:progress'),
    );
  }

  branchHead(): string {
    return this.git(
      this.s.project.repoDir,
      'rev-parse',
      `refs/heads/${this.s.mergeRequest.sourceBranch}`,
    );
  }
}

/** Resolves once the scripted server has received `count` requests. */
export async function requestsReached(
  llm: ScriptedOpenAiServer,
  count: number,
  limitMs = 45_000,
): Promise<void> {
  // no early give-up: a child process still loading under load (parallel test
  // workers) must not get its signal before it has set up its handlers
  const deadline = Date.now() + limitMs;
  while (llm.requests.length < count) {
    if (Date.now() > deadline)
      throw new Error(
        `the scripted model got ${llm.requests.length} of ${count} requests in ${limitMs} ms`,
      );
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
