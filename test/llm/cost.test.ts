import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import type { ChatRequest } from '../../src/core/llm-port.ts';
import { RunResultFile } from '../../src/report/result-file.ts';
import {
  startScriptedOpenAiServer,
  type ScriptedOpenAiServer,
} from '../../src/testkit/openai-server/server.ts';
import { runCli } from '../cli/helpers.ts';
import { action, assessment, planWith } from '../support/plans.ts';
import { makeTempRepo } from '../support/temp-repo.ts';
import { withLlm } from './helpers.ts';

const review: ChatRequest = {
  purpose: 'review.planning',
  role: 'review',
  messages: [{ role: 'user', content: 'Review the plan.' }],
};

const usage = (prompt: number, completion: number) => ({
  prompt_tokens: prompt,
  completion_tokens: completion,
});

describe('H1 cost: llm.price.* turns tokens into an estimated cost', function () {
  this.timeout(30_000);

  it('H1 cost: with prices set, a reply carries costUsd = tokens × price per million, and the ledger sums it', async () => {
    await withLlm(
      { replies: [{ content: 'ok', usage: usage(1000, 500), times: 2 }] },
      async (h) => {
        const reply = await h.llm.chat(review);
        // 1000 × $2 / 1M + 500 × $8 / 1M
        expect(reply.usage.costUsd).to.be.closeTo(0.006, 1e-12);
        await h.llm.chat(review);
        expect(h.llm.ledger.total().costUsd).to.be.closeTo(0.012, 1e-12);
        expect(h.llm.ledger.entries()[0]!.costUsd).to.be.closeTo(0.012, 1e-12);
      },
      { llm: { price: { input_per_mtok: 2, output_per_mtok: 8 } } },
    );
  });

  it('H1 cost: without prices, usage has tokens only', async () => {
    await withLlm({ replies: [{ content: 'ok', usage: usage(1000, 500) }] }, async (h) => {
      const reply = await h.llm.chat(review);
      expect(reply.usage).to.deep.equal({
        promptTokens: 1000,
        completionTokens: 500,
        totalTokens: 1500,
      });
      expect(h.llm.ledger.total()).to.not.have.property('costUsd');
    });
  });

  it('H1 cost: a profile with its own price is charged at that price for the calls it serves', async () => {
    await withLlm(
      {
        replies: [
          { model: 'model-a', fault: 'rate_limit', retry_after: 30 },
          { model: 'model-b', content: 'from b', usage: usage(1_000_000, 1_000_000) },
        ],
      },
      async (h) => {
        const reply = await h.llm.chat(review);
        expect(reply.content).to.equal('from b');
        expect(reply.usage.costUsd).to.be.closeTo(0.5 + 1.5, 1e-9);
      },
      {
        llm: {
          price: { input_per_mtok: 2, output_per_mtok: 8 },
          profiles: [
            {
              name: 'cheap',
              model: 'model-b',
              price: { input_per_mtok: 0.5, output_per_mtok: 1.5 },
            },
          ],
        },
      },
    );
  });

  describe('H1 cost in a run: result.json and the progress note', () => {
    let server: ScriptedOpenAiServer | undefined;
    let repo: Awaited<ReturnType<typeof makeTempRepo>> | undefined;
    afterEach(async () => {
      await server?.close();
      await repo?.cleanup();
    });

    async function run(extra: string[]) {
      repo = await makeTempRepo({});
      server = await startScriptedOpenAiServer({
        apiKey: 'sk-cost-test',
        scenario: {
          replies: [
            {
              purpose: 'planning',
              json: planWith([action('task_1', 'Write the answer')], ['answer.txt has 42']),
              usage: usage(2000, 400),
            },
            {
              purpose: 'execution',
              tool_calls: [
                { name: 'write_file', arguments: { path: 'answer.txt', content: '42\n' } },
              ],
              usage: usage(3000, 100),
            },
            { purpose: 'execution', content: 'DONE: wrote answer.txt', usage: usage(3500, 20) },
            { purpose: 'completion', json: assessment(true), usage: usage(1500, 80) },
          ],
        },
      });
      const result = await runCli(
        [
          'run',
          '--task',
          'Write 42 into answer.txt',
          '--repo',
          repo.dir,
          '--set',
          'planning.reflection.trigger_interval=0',
          ...extra,
        ],
        {
          env: {
            PATH: process.env.PATH ?? '',
            HOME: process.env.HOME ?? '/tmp',
            OPENAI_API_KEY: 'sk-cost-test',
            OPENAI_BASE_URL: server.url,
            MR_AGENT_LLM_MODEL: 'scripted-model',
            MR_AGENT_ENVIRONMENT_SETUP: 'false',
            MR_AGENT_REVIEW_ENABLED: 'false',
            REPLANNING_ENABLED: 'false',
          },
          cwd: repo.dir,
        },
      );
      expect(result.code, result.stderr).to.equal(0);
      const state = path.join(repo.dir, '.mr-agent');
      const file = RunResultFile.parse(
        JSON.parse(await readFile(path.join(state, 'result.json'), 'utf8')),
      );
      const note = await readFile(path.join(state, 'notes/progress-1.md'), 'utf8');
      return { file, note };
    }

    it('H1 cost: with llm.price.* set, result.json has cost_usd beside the tokens and the progress note shows it', async () => {
      const { file, note } = await run([
        '--set',
        'llm.price.input_per_mtok=3',
        '--set',
        'llm.price.output_per_mtok=15',
      ]);
      expect(file.tokens).to.include({ prompt: 10_000, completion: 600 });
      // 10,000 × $3 / 1M + 600 × $15 / 1M
      expect(file.cost_usd).to.be.closeTo(0.039, 1e-9);
      expect(note).to.contain('Estimated cost: $0.0390');
    });

    it('H1 cost: without prices, result.json has cost_usd null and the note shows tokens only', async () => {
      const { file, note } = await run([]);
      expect(file.tokens.total).to.equal(10_600);
      expect(file.cost_usd).to.equal(null);
      expect(note).to.contain('10,600 tokens').and.not.contain('Estimated cost');
    });
  });
});
