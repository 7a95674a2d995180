import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { runLocal, type RunFactories } from '../../../src/cli/commands/run-local.ts';
import type { CliIo } from '../../../src/cli/io.ts';
import { Metadata } from '../../../src/history/metadata.ts';
import { OpenAiLlm } from '../../../src/llm/openai-llm.ts';
import { FakeClock } from '../../../src/core/clock.ts';
import {
  startScriptedOpenAiServer,
  type ScriptedOpenAiServer,
} from '../../../src/testkit/openai-server/server.ts';
import type { ScriptedReplyInput } from '../../../src/testkit/openai-server/scenario.ts';
import { assessment } from '../../support/plans.ts';
import { makeTempRepo } from '../../support/temp-repo.ts';
import { writeHello } from './harness.ts';

const API_KEY = 'sk-review-e2e-0123456789';

/**
 * `mr-agent run` end to end: the CLI's run command, the real `openai` SDK
 * against the scripted OpenAI-compatible HTTP server (answering by
 * `X-Agent-Purpose`), a real temporary git repository, the real report layer.
 */
async function runCli(server: ScriptedOpenAiServer, repoDir: string) {
  const out = { stdout: '', stderr: '' };
  const io: CliIo = {
    argv: [],
    env: {
      PATH: process.env.PATH ?? '',
      OPENAI_API_KEY: API_KEY,
      OPENAI_BASE_URL: server.url,
      REPLANNING_ENABLED: 'false',
    },
    cwd: repoDir,
    stdout: { write: (t: string) => (out.stdout += t) },
    stderr: { write: (t: string) => (out.stderr += t) },
    readStdin: async () => undefined,
  };
  const factories: RunFactories = {
    createLlm: (config, env, logger, clock) =>
      new OpenAiLlm({ llm: config.llm, env, logger, clock, timeoutMs: 5000 }),
    clock: new FakeClock(),
  };
  const code = await runLocal(
    io,
    {
      task: 'Write hello.txt with the word hello',
      set: ['planning.reflection.trigger_interval=0'],
    },
    factories,
  );
  const metadata = Metadata.parse(
    JSON.parse(await readFile(path.join(repoDir, '.mr-agent/metadata.json'), 'utf8')),
  );
  return { code, ...out, metadata };
}

const planReply: ScriptedReplyInput = { purpose: 'planning', json: writeHello.plan };
const reviewReply = (purpose: string, content: string): ScriptedReplyInput => ({
  purpose,
  content,
});

describe('review → revise end to end: mr-agent run, openai SDK, scripted HTTP server, git repo (seed 004)', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });

  async function setUp(replies: ScriptedReplyInput[]) {
    const server = await startScriptedOpenAiServer({
      scenario: { replies },
      apiKey: API_KEY,
    });
    cleanups.push(() => server.close());
    const repo = await makeTempRepo({ 'README.md': '# demo\n' });
    cleanups.push(repo.cleanup);
    return { server, repo };
  }

  it('AC-5 AC-6 four FAIL verdicts over HTTP: planning failed with retry_count 3, later phases skipped, exit code 1', async () => {
    const { server, repo } = await setUp([
      planReply,
      reviewReply('review.planning', '{"result": "FAIL"} \n理由: テスト手順がありません。'),
      planReply,
      reviewReply('review.planning', 'PASS判定が可能になります。\n\n最終判定: FAIL'),
      planReply,
      reviewReply('review.planning', '判定: PASS\n最終判定: FAIL'),
      planReply,
      reviewReply('review.planning', '{"result": "FAIL", "feedback": "Still no test step."}'),
    ]);
    const { code, stdout, stderr, metadata } = await runCli(server, repo.dir);
    server.assertAllUsed();
    expect(code).to.equal(1);
    expect(server.requests.map((r) => r.purpose)).to.deep.equal([
      'planning',
      'review.planning',
      'planning',
      'review.planning',
      'planning',
      'review.planning',
      'planning',
      'review.planning',
    ]);
    expect(stderr)
      .to.contain('JSON extraction succeeded')
      .and.contain('Fallback verdict: FAIL (marker pattern: 最終判定)')
      .and.contain('Phase planning: Starting revise step')
      .and.contain('Phase planning: Retry limit exceeded (3/3). Marking phase as failed.')
      .and.contain('Skipping subsequent phases due to failed phase: planning');
    expect(stdout).to.contain('mr-agent: FAILED (phase_failed)');
    expect(metadata.phases['planning']).to.include({ status: 'failed', retry_count: 3 });
    expect(metadata.phases['execution']).to.include({ status: 'skipped' });
    // the revision got the reason that followed the JSON
    const secondPlan = server.requests.filter((r) => r.purpose === 'planning')[1]!;
    expect(JSON.stringify(secondPlan.messages)).to.contain('テスト手順がありません');
  });

  it('FR-3 retry 2 → PASS over HTTP: the run goes on, the execution reviewer sees the git diff, exit code 0', async () => {
    const { server, repo } = await setUp([
      planReply,
      reviewReply('review.planning', '{"result": "FAIL", "feedback": "Add a test step."}'),
      planReply,
      reviewReply(
        'review.planning',
        '再度レビューを実施し、PASS判定が可能になります\n最終判定: FAIL',
      ),
      planReply,
      reviewReply('review.planning', '{"result": "PASS", "feedback": ""}\nLooks good.'),
      {
        purpose: 'execution',
        tool_calls: [{ name: 'write_file', arguments: { path: 'hello.txt', content: 'hello\n' } }],
      },
      { purpose: 'execution', content: 'DONE: wrote hello.txt' },
      {
        purpose: 'review.execution',
        contains: ['+hello', 'AC-1: hello.txt says hello'],
        content: '{"result": "PASS_WITH_SUGGESTIONS", "feedback": "Add a trailing test."}',
      },
      { purpose: 'completion', json: assessment(true) },
    ]);
    const { code, stdout, metadata } = await runCli(server, repo.dir);
    server.assertAllUsed();
    expect(code).to.equal(0);
    expect(stdout).to.contain('mr-agent: COMPLETE (completed)');
    expect(await readFile(path.join(repo.dir, 'hello.txt'), 'utf8')).to.equal('hello\n');
    expect(metadata.phases['planning']).to.include({ status: 'completed', retry_count: 2 });
    expect(metadata.phases['execution']).to.include({ status: 'completed', retry_count: 0 });
    const taskNote = /Task Note: (\S+)/.exec(stdout)![1]!;
    const note = await readFile(path.join(repo.dir, taskNote), 'utf8');
    expect(note).to.contain('Review suggestions (execution): Add a trailing test.');
  });
});
