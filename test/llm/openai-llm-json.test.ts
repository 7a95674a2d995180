import { expect } from 'chai';
import { z } from 'zod';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, ExternalServiceError, ModelBehaviorError } from '../../src/errors/errors.ts';
import type { JsonRequest } from '../../src/core/llm-port.ts';
import type { ScenarioInput } from '../../src/testkit/openai-server/scenario.ts';
import { withLlm } from './helpers.ts';

const Verdict = z.object({ result: z.enum(['PASS', 'FAIL']), feedback: z.string() }).strict();

const request: JsonRequest<z.infer<typeof Verdict>> = {
  purpose: 'review.planning',
  role: 'review',
  messages: [{ role: 'user', content: 'Review the plan and answer with JSON.' }],
  schema: Verdict,
  schemaName: 'review_verdict',
};

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the call to fail');
}

describe('llm/openai-llm structured replies (K2)', () => {
  it('K2 asks for a JSON-schema response format and returns the validated value', async () => {
    const scenario: ScenarioInput = {
      replies: [{ purpose: 'review.planning', json: { result: 'PASS', feedback: 'Good.' } }],
    };
    await withLlm(scenario, async (h) => {
      const reply = await h.llm.json(request);

      expect(reply.value).to.deep.equal({ result: 'PASS', feedback: 'Good.' });
      expect(reply.reasks).to.equal(0);
      expect(reply.raw).to.equal('{"result":"PASS","feedback":"Good."}');
      const format = h.server.requests[0]?.body?.['response_format'] as {
        json_schema: { name: string; strict: boolean; schema: { required: string[] } };
      };
      expect(h.server.requests[0]?.responseFormat).to.equal('json_schema:review_verdict');
      expect(format.json_schema.strict).to.equal(true);
      expect(format.json_schema.schema.required).to.deep.equal(['result', 'feedback']);
    });
  });

  it('issue 17 #7 a re-ask prompt override with an unknown placeholder is a ConfigError naming it, nothing sent', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'mr-agent-reask-'));
    await writeFile(path.join(dir, 'json-reask.md'), 'Fix your {{schema}}: {{problem}}');
    const scenario: ScenarioInput = {
      replies: [
        { purpose: 'review.planning', content: 'not json at all' },
        { purpose: 'review.planning', json: { result: 'PASS', feedback: 'ok' } },
      ],
    };
    await withLlm(
      scenario,
      async (h) => {
        const error = await failure(h.llm.json(request));
        expect(error).to.be.instanceOf(ConfigError);
        expect(error.message).to.contain('{{schema}}');
        expect(h.server.requests).to.have.length(1);
      },
      { promptsDir: dir },
    );
  });

  it('K2 when the endpoint refuses JSON schema, falls back to plain replies for the rest of the run', async () => {
    const scenario: ScenarioInput = {
      json_schema: false,
      replies: [
        {
          purpose: 'review.planning',
          times: 2,
          content: 'My review:\n```json\n{"result": "FAIL", "feedback": "No tests."}\n```\nThanks.',
        },
      ],
    };
    await withLlm(scenario, async (h) => {
      expect((await h.llm.json(request)).value).to.deep.equal({
        result: 'FAIL',
        feedback: 'No tests.',
      });
      expect(h.llm.structuredOutput).to.equal(false);
      await h.llm.json(request);

      expect(h.server.requests.map((r) => [r.status, r.responseFormat])).to.deep.equal([
        [400, 'json_schema:review_verdict'],
        [200, undefined],
        [200, undefined],
      ]);
      expect(
        h.logged('llm endpoint refused JSON-schema replies; plain replies from now on'),
      ).to.have.length(1);
      expect(h.clock.sleeps).to.deep.equal([]);
      h.server.assertAllUsed();
    });
  });

  it('K2 with structured_output "json_schema" a refusal is an error, with "off" no format is sent', async () => {
    const refusing: ScenarioInput = { json_schema: false, replies: [] };
    await withLlm(
      refusing,
      async (h) => {
        const error = await failure(h.llm.json(request));
        expect(error).to.be.instanceOf(ExternalServiceError);
        expect((error as ExternalServiceError).status).to.equal(400);
      },
      { llm: { structured_output: 'json_schema' } },
    );
    const plain: ScenarioInput = {
      replies: [{ json: { result: 'PASS', feedback: '' } }],
    };
    await withLlm(
      plain,
      async (h) => {
        await h.llm.json(request);
        expect(h.server.requests[0]?.responseFormat).to.equal(undefined);
      },
      { llm: { structured_output: 'off' } },
    );
  });

  it('K2 sends a failed validation back with the zod message and uses the corrected reply', async () => {
    const scenario: ScenarioInput = {
      json_schema: false,
      replies: [
        {
          purpose: 'review.planning',
          content: '{"result": "MAYBE"}',
          usage: { prompt_tokens: 10, completion_tokens: 2 },
        },
        {
          purpose: 'review.planning',
          contains: 'review_verdict',
          json: { result: 'FAIL', feedback: 'fixed' },
          usage: { prompt_tokens: 20, completion_tokens: 3 },
        },
      ],
    };
    await withLlm(scenario, async (h) => {
      const reply = await h.llm.json(request);

      expect(reply.value).to.deep.equal({ result: 'FAIL', feedback: 'fixed' });
      expect(reply.reasks).to.equal(1);
      expect(reply.usage).to.deep.equal({ promptTokens: 30, completionTokens: 5, totalTokens: 35 });
      const second = h.server.requests.at(-1)!.messages;
      expect(second.at(-2)).to.deep.include({ role: 'assistant', content: '{"result": "MAYBE"}' });
      const reask = String(second.at(-1)?.['content']);
      expect(reask).to.contain('`review_verdict`');
      expect(reask).to.contain('result'); // the zod message names the bad field
      expect(reask).to.contain('feedback');
      expect(h.logged('llm reply failed validation')[0]).to.include({ reask: 1, maxReasks: 3 });
      h.server.assertAllUsed();
    });
  });

  it('K2 after llm.max_reasks re-asks (default 3) fails with a model-behaviour error', async () => {
    const scenario: ScenarioInput = {
      replies: [{ purpose: 'review.planning', times: 4, content: 'I think it is fine.' }],
    };
    await withLlm(scenario, async (h) => {
      const error = await failure(h.llm.json(request));

      expect(error).to.be.instanceOf(ModelBehaviorError);
      expect(error.message).to.contain('did not match review_verdict after 3 re-asks');
      expect(error.message).to.contain("has no '{'");
      expect((error as ModelBehaviorError).purpose).to.equal('review.planning');
      expect(h.server.requests).to.have.length(4);
      h.server.assertAllUsed();
    });
  });

  it('K4 a runaway invalid reply is not echoed whole in the re-ask', async () => {
    const runaway = '{'.repeat(2_000_000);
    const scenario: ScenarioInput = {
      json_schema: false,
      replies: [
        { purpose: 'review.planning', content: runaway },
        { purpose: 'review.planning', json: { result: 'PASS', feedback: 'ok' } },
      ],
    };
    await withLlm(scenario, async (h) => {
      const reply = await h.llm.json(request);

      expect(reply.value.result).to.equal('PASS');
      const echoed = String(h.server.requests.at(-1)!.messages.at(-2)?.['content']);
      expect(echoed.length).to.be.below(17_000);
      expect(echoed).to.match(/\[… 1984000 more characters of this reply not repeated\]$/);
      h.server.assertAllUsed();
    });
  });
});
