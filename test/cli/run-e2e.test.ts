import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { RunResultFile } from '../../src/report/result-file.ts';
import {
  startScriptedOpenAiServer,
  type ScriptedOpenAiServer,
} from '../../src/testkit/openai-server/server.ts';
import { action, assessment, planWith } from '../support/plans.ts';
import { makeTempRepo } from '../support/temp-repo.ts';
import { runCli } from './helpers.ts';

const SECRET_KEY = 'sk-e2e-secret-key-123456';
const GITLAB_TOKEN = 'glpat-e2e-secret-token-98765';

/** A replan decision (seed 003) that keeps the plan. */
function keepPlan(point: string) {
  return {
    purpose: `replan.${point}`,
    json: { replan_decision: { replan_needed: false, confidence: 0.9, reasoning: 'On track.' } },
  };
}

describe('cli: mr-agent run end to end over HTTP (A5, K1, M1)', () => {
  let server: ScriptedOpenAiServer;
  let repo: Awaited<ReturnType<typeof makeTempRepo>>;
  afterEach(async () => {
    await server?.close();
    await repo?.cleanup();
  });

  it('A5 runs a task against an OpenAI-compatible endpoint; run_command "env" shows no token or key', async () => {
    repo = await makeTempRepo({ 'check.sh': 'grep -q 42 answer.txt\n' });
    server = await startScriptedOpenAiServer({
      apiKey: SECRET_KEY,
      scenario: {
        replies: [
          {
            purpose: 'planning',
            json: planWith(
              [action('task_1', 'Write the answer', 'write_file')],
              ['answer.txt has 42'],
            ),
          },
          ...['goal_understanding', 'task_decomposition', 'action_sequence'].map(keepPlan),
          {
            purpose: 'execution',
            tool_calls: [{ name: 'run_command', arguments: { command: 'env' } }],
          },
          {
            purpose: 'execution',
            tool_calls: [
              { name: 'write_file', arguments: { path: 'answer.txt', content: '42\n' } },
            ],
          },
          { purpose: 'execution', content: 'DONE: wrote answer.txt' },
          keepPlan('execution'),
          { purpose: 'completion', json: assessment(true) },
          keepPlan('final_evaluation'),
        ],
      },
    });
    const { code, stdout, stderr } = await runCli(
      [
        'run',
        '--task',
        'Write 42 into answer.txt',
        '--repo',
        repo.dir,
        '--set',
        'planning.reflection.trigger_interval=0',
        '--set',
        'execution.test_command=sh check.sh',
      ],
      {
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '/tmp',
          OPENAI_API_KEY: SECRET_KEY,
          OPENAI_BASE_URL: server.url,
          MR_AGENT_LLM_MODEL: 'scripted-model',
          MR_AGENT_GITLAB_TOKEN: GITLAB_TOKEN,
          MR_AGENT_ENVIRONMENT_SETUP: 'false',
          MR_AGENT_REVIEW_ENABLED: 'false',
          // our own test world: commands run where the test is not root too (issue 19 §3)
          MR_AGENT_ISOLATION: 'accept-risk',
        },
        cwd: repo.dir,
      },
    );
    expect(code, stderr).to.equal(0);
    server.assertAllUsed();
    expect(stdout).to.contain('mr-agent: COMPLETE (completed)');
    expect(server.requests.map((r) => r.purpose)).to.deep.equal([
      'planning',
      'replan.goal_understanding',
      'replan.task_decomposition',
      'replan.action_sequence',
      'execution',
      'execution',
      'execution',
      'replan.execution',
      'completion',
      'replan.final_evaluation',
    ]);
    const toolMessage = server.requests[5]!.messages.find((m) => m.role === 'tool');
    const envOutput = String(toolMessage?.content ?? '');
    expect(envOutput).to.contain('PATH=');
    for (const secret of [SECRET_KEY, GITLAB_TOKEN, 'OPENAI_API_KEY', 'MR_AGENT_GITLAB_TOKEN'])
      expect(envOutput).not.to.contain(secret);
    const result = RunResultFile.parse(
      JSON.parse(await readFile(path.join(repo.dir, '.mr-agent/result.json'), 'utf8')),
    );
    expect(result).to.include({ status: 'succeeded', state: 'complete', exit_code: 0 });
    const everything = `${stdout}${stderr}${await readFile(path.join(repo.dir, '.mr-agent/task-' + result.task_id + '.md'), 'utf8')}`;
    expect(everything).not.to.contain(SECRET_KEY).and.not.to.contain(GITLAB_TOKEN);
  });
});
