import { execFileSync } from 'node:child_process';
import { shellCheckout } from '../../../src/shell/checkout-port.ts';
import { promptFiles } from '../../../src/llm/prompt-files.ts';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../../src/config/load.ts';
import { createGitLabClient } from '../../../src/gitlab/gitbeaker-adapter.ts';
import { GitLabNoteTarget } from '../../../src/gitlab/note-target.ts';
import type { GitLabPort, MergeRequest } from '../../../src/core/gitlab-port.ts';
import { ACCESS_LEVEL } from '../../../src/gitlab/access-levels.ts';
import { loadGitLabRequest } from '../../../src/ci/gitlab-request.ts';
import { createOpenAiLlm } from '../../../src/llm/openai-llm.ts';
import { createMemoryLogger } from '../../../src/log/logger.ts';
import { Redactor } from '../../../src/log/redact.ts';
import { deliver, type DeliveryResult } from '../../../src/phases/deliver/deliver.ts';
import { snapshotGitControl } from '../../../src/phases/deliver/git-guard.ts';
import { createDeliveryStep } from '../../../src/phases/deliver/step.ts';
import type { RequestSource } from '../../../src/core/gathered.ts';
import { FakeClock } from '../../../src/core/clock.ts';
import { environmentStep } from '../../../src/phases/environment/step.ts';
import { runTask } from '../../../src/run/orchestrator.ts';
import type { RunOutcome } from '../../../src/core/outcome.ts';
import { promptLibrary } from '../../../src/llm/prompt-files.ts';
import { startReporting } from '../../../src/run/reporting/index.ts';
import { ExecaShell } from '../../../src/shell/execa-shell.ts';
import { taskFromText } from '../../../src/task/task-yaml.ts';
import type { ScriptedReplyInput } from '../../../src/testkit/openai-server/scenario.ts';
import {
  startScriptedOpenAiServer,
  type ScriptedOpenAiServer,
} from '../../../src/testkit/openai-server/server.ts';
import {
  seedScenario,
  startGitLabStandIn,
  type GitLabStandIn,
  type Scenario,
} from '../../../src/testkit/gitlab-server/index.ts';
import { SECRETS, secretEnv } from './secrets.ts';

/**
 * A CI-shaped run, composed the way a job composes it: the GitLab stand-in
 * (merge request, discussion, protected default branch, repositories over
 * HTTP), a checkout of the merge request's branch, the scripted
 * OpenAI-compatible server over HTTP, the run pipeline (`runTask`) reporting
 * through GitLab notes, and delivery (`deliver`) pushing with the token.
 * Every secret is in the environment.
 */
export interface CiRunOptions {
  replies: ScriptedReplyInput[];
  /** Files of the project's default branch (the MR branch adds its own). */
  files?: Record<string, string>;
  /** Merge request title/description (untrusted text). */
  mergeRequest?: { title?: string; description?: string };
  /** Comments on the merge request, by role. */
  comments?: { author: 'developer' | 'guest' | 'maintainer'; body: string }[];
  instruction?: string;
  sets?: string[];
  /** Changes the stand-in before the run (faults, extra state). */
  before?: (world: { standIn: GitLabStandIn; s: Scenario }) => void | Promise<void>;
  deliver?: boolean;
  /** Delivery as a job composes it: inside the run, so its failure ends the run and reaches the notes. */
  deliverInRun?: boolean;
  signal?: AbortSignal;
}

export interface CiRun {
  outcome: RunOutcome | undefined;
  error: unknown;
  delivery: DeliveryResult | undefined;
  deliveryError: unknown;
  standIn: GitLabStandIn;
  s: Scenario;
  server: ScriptedOpenAiServer;
  logLines: string[];
  checkout: string;
  close(): Promise<void>;
}

/** The merge request and its discussion, as the job's gather phase loads them (C1, C4). */
function mergeRequestSource(
  gitlab: GitLabPort,
  projectId: number,
  mr: MergeRequest,
  botId: number,
): RequestSource {
  return {
    load: () =>
      loadGitLabRequest({
        gitlab,
        projectId,
        request: {
          source: 'note',
          command: 'run',
          task: '',
          target: { kind: 'merge_request', iid: mr.iid },
        },
        minimumAccessLevel: ACCESS_LEVEL.developer,
        botUserId: botId,
      }),
  };
}

export async function runCi(options: CiRunOptions): Promise<CiRun> {
  const standIn = await startGitLabStandIn({ gitHttp: true, pathEnv: process.env.PATH });
  const s = await seedScenario(standIn.model, options.files ? { files: options.files } : {});
  standIn.model.addToken(s.bot.id, { value: SECRETS.gitlabToken, scopes: ['api'] });
  if (options.mergeRequest?.title) s.mergeRequest.title = options.mergeRequest.title;
  if (options.mergeRequest?.description !== undefined)
    s.mergeRequest.description = options.mergeRequest.description;
  for (const c of options.comments ?? [])
    standIn.model.addNote({ on: s.mergeRequest, body: c.body, authorId: s[c.author].id });
  const server = await startScriptedOpenAiServer({
    apiKey: SECRETS.llmKey,
    scenario: { json_schema: false, replies: options.replies },
  });
  const work = await mkdtemp(path.join(os.tmpdir(), 'mr-agent-ci-run-'));
  const checkout = path.join(work, 'checkout');
  execFileSync('git', [
    'clone',
    '--quiet',
    '--branch',
    s.mergeRequest.sourceBranch,
    `file://${s.project.repoDir}`,
    checkout,
  ]);
  const env: Record<string, string> = {
    ...secretEnv(),
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/tmp',
    OPENAI_BASE_URL: server.url,
    MR_AGENT_LLM_MODEL: 'scripted-model',
    MR_AGENT_GITLAB_URL: standIn.url,
    MR_AGENT_ENVIRONMENT_SETUP: 'false',
    // the cells script the core phases; review and replanning have their own
    // fault and scenario tests (test/phases/review, test/replan)
    MR_AGENT_REVIEW_ENABLED: 'false',
    REPLANNING_ENABLED: 'false',
  };
  const { config } = await loadConfig({
    env,
    file: null,
    sets: ['planning.reflection.trigger_interval=0', ...(options.sets ?? [])],
  });
  const redactor = new Redactor();
  redactor.addFromEnv(env, [...config.secrets.variables, config.llm.api_key_variable]);
  redactor.add(config.gitlab.token);
  const { logger, lines } = createMemoryLogger({ redactor, format: 'json', level: 'debug' });
  const clock = new FakeClock();
  const gitlab = createGitLabClient({
    url: standIn.url,
    token: SECRETS.gitlabToken,
    clock,
    logger,
    retry: { timeoutMs: 1000 },
  });
  const mr = await gitlab.getMergeRequest(s.project.id, s.mergeRequest.iid);
  // origin is GitLab over HTTP with no credentials in it, as on current runners
  const project = await gitlab.getProject(s.project.id);
  execFileSync('git', ['remote', 'set-url', 'origin', project.httpUrlToRepo], { cwd: checkout });
  const gitControl = await snapshotGitControl(checkout);
  const target = new GitLabNoteTarget(gitlab, s.project.id, {
    type: 'merge_request',
    iid: mr.iid,
  });
  const task = taskFromText(options.instruction ?? 'Write 42 into answer.txt', {
    repo: checkout,
    id: 'ci-task',
  });
  await options.before?.({ standIn, s });
  const result: CiRun = {
    outcome: undefined,
    error: undefined,
    delivery: undefined,
    deliveryError: undefined,
    standIn,
    s,
    server,
    logLines: lines,
    checkout,
    close: async () => {
      await server.close();
      await standIn.close();
      await rm(work, { recursive: true, force: true });
    },
  };
  try {
    const reporting = await startReporting({
      repoDir: checkout,
      config,
      taskId: task.id,
      title: task.title,
      runId: 'ci-run-1',
      target,
      redactor,
      logger,
      clock,
      ci: { jobId: '901', pipelineId: '77' },
      issueId: `mr-${mr.iid}`,
    });
    const llm = createOpenAiLlm(config, { env, logger, clock, timeoutMs: 1500 });
    const shell = new ExecaShell();
    const environment = environmentStep({
      config,
      llm,
      shell,
      clock,
      logger,
      redactor,
      hostEnv: env,
      repoDir: checkout,
      prompts: promptFiles(),
      marker: { job: '901', task: task.id },
    });
    result.outcome = await runTask(
      {
        config,
        llm,
        shell,
        checkout: shellCheckout,
        clock,
        logger,
        redactor,
        hostEnv: env,
        prompts: promptLibrary(),
        environment,
        reporter: reporting.reporter,
        history: reporting.history,
        request: mergeRequestSource(gitlab, s.project.id, mr, s.bot.id),
        ...(options.deliverInRun
          ? {
              delivery: createDeliveryStep({
                shell: new ExecaShell(),
                checkout: shellCheckout,
                repoDir: checkout,
                gitlab,
                project,
                target: { kind: 'merge_request', mergeRequest: mr },
                notes: target,
                token: SECRETS.gitlabToken,
                hostEnv: env,
                author: { name: 'mr-agent', email: 'mr-agent@example.invalid' },
                branchPrefix: config.delivery.branch_prefix,
                redactor,
                logger,
                gitControl,
              }),
            }
          : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      },
      { task, repoDir: checkout, maxLoops: 3 },
    );
  } catch (error) {
    result.error = error;
  }
  if (options.deliver && result.outcome?.state === 'COMPLETE') {
    result.delivery = await deliver({
      shell: new ExecaShell(),
      checkout: shellCheckout,
      repoDir: checkout,
      gitlab,
      project,
      target: { kind: 'merge_request', mergeRequest: mr },
      notes: target,
      token: SECRETS.gitlabToken,
      hostEnv: env,
      commit: {
        title: 'mr-agent: write the answer',
        body: result.outcome.summary,
        author: { name: 'mr-agent', email: 'mr-agent@example.invalid' },
      },
      branchPrefix: config.delivery.branch_prefix,
      redactor,
      logger,
      gitControl,
    }).catch((error: unknown) => {
      result.deliveryError = error;
      return undefined;
    });
  }
  return result;
}
