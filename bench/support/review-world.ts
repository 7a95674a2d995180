// A merge request in the GitLab stand-in that `/agent review` jobs review
// one after the other: each job is `node dist/mr-agent.mjs ci` as a child
// process in a fresh clone of the merge request's branch, against the
// stand-in and its own scripted OpenAI-compatible server over real HTTP, as
// a pipeline the webhook bridge triggered for `/agent review` would run it.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChangedFile } from '../../src/core/gitlab-port.ts';
import { toChangedFile } from '../../src/gitlab/mappers.ts';
import { RunResultFile } from '../../src/report/result-file.ts';
import { commitFiles, diffFiles } from '../../src/testkit/gitlab-server/git.ts';
import {
  seedScenario,
  startGitLabStandIn,
  type GitLabStandIn,
  type Scenario,
} from '../../src/testkit/gitlab-server/index.ts';
import { promptTokens } from '../../src/testkit/openai-server/responses.ts';
import { startScriptedOpenAiServer } from '../../src/testkit/openai-server/server.ts';
import { BIN, triggeredJobVariables } from './ci-job.ts';

const KEY = 'sk-bench-review-2718';

export interface ReviewJob {
  /** Prompt tokens of each model call, as the scripted server counts them. */
  calls: { promptTokens: number; text: string }[];
  result: RunResultFile;
  /** Replies the scenario held that no call used. */
  unusedReplies: number;
}

export class ReviewWorld {
  private readonly work = mkdtempSync(path.join(os.tmpdir(), 'mr-agent-bench-review-'));

  private constructor(
    readonly standIn: GitLabStandIn,
    readonly s: Scenario,
  ) {}

  /** A project whose merge request changes `base` (the target branch's files) into `head`. */
  static async start(
    base?: Record<string, string>,
    head?: Record<string, string | null>,
  ): Promise<ReviewWorld> {
    const standIn = await startGitLabStandIn();
    const world = new ReviewWorld(standIn, await seedScenario(standIn.model));
    const { repoDir, defaultBranch } = world.s.project;
    if (base) await commitFiles(repoDir, defaultBranch, base);
    if (head)
      await commitFiles(repoDir, world.s.mergeRequest.sourceBranch, head, {
        from: `refs/heads/${defaultBranch}`,
      });
    return world;
  }

  async close(): Promise<void> {
    await this.standIn.close();
    rmSync(this.work, { recursive: true, force: true });
  }

  /** The merge request's change, as GitLab's diffs API lists it. */
  async changes(): Promise<ChangedFile[]> {
    const { repoDir, defaultBranch } = this.s.project;
    const files = await diffFiles(
      repoDir,
      `refs/heads/${defaultBranch}`,
      `refs/heads/${this.s.mergeRequest.sourceBranch}`,
    );
    return files.map((f) => toChangedFile(f));
  }

  async push(files: Record<string, string | null>): Promise<void> {
    await commitFiles(this.s.project.repoDir, this.s.mergeRequest.sourceBranch, files);
  }

  /** One `/agent review` job; throws when it does not end with exit code 0. */
  async review(replies: unknown[], variables: Record<string, string> = {}): Promise<ReviewJob> {
    const { standIn, s } = this;
    const llm = await startScriptedOpenAiServer({
      apiKey: KEY,
      scenario: { replies } as Parameters<typeof startScriptedOpenAiServer>[0]['scenario'],
    });
    const dir = mkdtempSync(path.join(this.work, 'job-'));
    try {
      const branch = s.mergeRequest.sourceBranch;
      execFileSync('git', ['clone', '-q', '-b', branch, s.project.repoDir, dir]);
      const note = standIn.model.addNote({
        on: s.mergeRequest,
        body: '/agent review',
        authorId: s.developer.id,
      });
      const trigger = {
        MR_AGENT_SOURCE: 'note',
        MR_AGENT_COMMAND: 'review',
        MR_AGENT_TASK: '',
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
        variables: trigger,
      });
      const env: Record<string, string> = {
        ...triggeredJobVariables(standIn, s, {
          dir,
          home: this.work,
          branch,
          pipelineId: pipeline.id,
          jobId: jobs[0]!.id,
          llmUrl: llm.url,
          llmKey: KEY,
        }),
        ...trigger,
        ...variables,
      };
      const child = spawn(process.execPath, [BIN, 'ci', '--step', 'all'], {
        cwd: dir,
        env,
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      const code = await new Promise<number>((resolve) =>
        child.on('close', (exit) => resolve(exit ?? 1)),
      );
      standIn.model.setPipelineStatus(pipeline.id, code === 0 ? 'success' : 'failed');
      if (code !== 0) throw new Error(`the review job exited ${code}:\n${stderr.slice(-3000)}`);
      const result = RunResultFile.parse(
        JSON.parse(readFileSync(path.join(dir, '.mr-agent', 'result.json'), 'utf8')),
      );
      const calls = llm.requests.map((r) => ({
        promptTokens: promptTokens(r.body as Parameters<typeof promptTokens>[0]),
        text: JSON.stringify(r.messages),
      }));
      return { calls, result, unusedReplies: replies.length - llm.requests.length };
    } finally {
      await llm.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
}
