import { expect } from 'chai';
import { hintOf } from '../../src/errors/catalog.ts';
import { CancelledError, ConfigError, ExternalServiceError } from '../../src/errors/errors.ts';
import { OpenAiLlm } from '../../src/llm/openai-llm.ts';
import type { ChatRequest } from '../../src/core/llm-port.ts';
import { createSilentLogger } from '../../src/log/logger.ts';
import { FakeClock } from '../../src/core/clock.ts';
import type {
  ScenarioInput,
  ScriptedReplyInput,
} from '../../src/testkit/openai-server/scenario.ts';
import { llmConfig, withLlm } from './helpers.ts';

const ask = (purpose: ChatRequest['purpose'] = 'planning', text = 'hello'): ChatRequest => ({
  purpose,
  role: 'planning',
  messages: [
    { role: 'system', content: 'You plan.' },
    { role: 'user', content: text },
  ],
});

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the call to fail');
}

describe('llm/openai-llm (real SDK against the scripted server)', () => {
  it('K1 sends model, key and X-Agent-Purpose, and returns content, usage and model', async () => {
    await withLlm({ replies: [{ purpose: 'planning', content: 'A plan.' }] }, async (h) => {
      const reply = await h.llm.chat(ask());

      expect(reply.content).to.equal('A plan.');
      expect(reply.finishReason).to.equal('stop');
      expect(reply.model).to.equal('model-a');
      expect(reply.usage.promptTokens).to.be.greaterThan(0);
      expect(reply.usage.totalTokens).to.equal(
        reply.usage.promptTokens + reply.usage.completionTokens,
      );
      const [request] = h.server.requests;
      expect(request?.purpose).to.equal('planning');
      expect(request?.model).to.equal('model-a');
      expect(request?.body?.['stream']).to.equal(undefined);
      h.server.assertAllUsed();
    });
  });

  it('K1 sends tools and returns tool calls; tool results go back as tool messages', async () => {
    const scenario: ScenarioInput = {
      replies: [
        {
          purpose: 'execution',
          tool_calls: [{ id: 'call_1', name: 'write_file', arguments: { path: 'a.txt' } }],
        },
        { purpose: 'execution', contains: 'written', content: 'Done.' },
      ],
    };
    await withLlm(scenario, async (h) => {
      const tools = [{ name: 'write_file', description: 'Write', parameters: { type: 'object' } }];
      const first = await h.llm.chat({ ...ask('execution'), role: 'execution', tools });
      expect(first.toolCalls).to.deep.equal([
        { id: 'call_1', name: 'write_file', arguments: '{"path":"a.txt"}' },
      ]);
      expect(first.finishReason).to.equal('tool_calls');

      const second = await h.llm.chat({
        purpose: 'execution',
        role: 'execution',
        tools,
        messages: [
          { role: 'user', content: 'go' },
          { role: 'assistant', content: null, toolCalls: first.toolCalls },
          { role: 'tool', toolCallId: 'call_1', content: 'written 5 bytes' },
        ],
      });
      expect(second.content).to.equal('Done.');
      expect(h.server.requests[0]?.toolNames).to.deep.equal(['write_file']);
      expect(h.server.requests[1]?.messages[2]).to.include({
        role: 'tool',
        tool_call_id: 'call_1',
      });
      h.server.assertAllUsed();
    });
  });

  it('K2 records token usage per role and purpose in the ledger', async () => {
    const scenario: ScenarioInput = {
      replies: [
        { purpose: 'planning', content: 'x', usage: { prompt_tokens: 100, completion_tokens: 10 } },
        {
          purpose: 'review.planning',
          content: 'y',
          usage: { prompt_tokens: 50, completion_tokens: 5 },
        },
        {
          purpose: 'review.planning',
          content: 'z',
          usage: { prompt_tokens: 60, completion_tokens: 6 },
        },
      ],
    };
    await withLlm(scenario, async (h) => {
      await h.llm.chat(ask('planning'));
      await h.llm.chat({ ...ask('review.planning'), role: 'review' });
      await h.llm.chat({ ...ask('review.planning'), role: 'review' });

      expect(h.llm.ledger.total()).to.deep.equal({
        calls: 3,
        promptTokens: 210,
        completionTokens: 21,
        totalTokens: 231,
      });
      expect(h.llm.ledger.byPurpose().get('review.planning')).to.deep.include({
        calls: 2,
        promptTokens: 110,
      });
      expect(h.llm.ledger.byRole().get('planning')?.totalTokens).to.equal(110);
    });
  });

  const retried: [string, ScriptedReplyInput][] = [
    ['a 500', { fault: 'server_error' }],
    ['a 503', { fault: { status: 503, message: 'overloaded' } }],
    ['a 429 without Retry-After', { fault: 'rate_limit' }],
    ['a connection reset', { fault: 'reset' }],
    ['a malformed body', { fault: 'malformed' }],
    ['a hang past the timeout', { fault: 'hang' }],
  ];
  for (const [what, fault] of retried) {
    it(`K1 retries ${what} with backoff 1 s, 2 s and succeeds on the third attempt`, async () => {
      const scenario: ScenarioInput = {
        replies: [
          { purpose: 'planning', times: 2, ...fault },
          { purpose: 'planning', content: 'finally' },
        ],
      };
      await withLlm(
        scenario,
        async (h) => {
          const reply = await h.llm.chat(ask());

          expect(reply.content).to.equal('finally');
          expect(h.clock.sleeps).to.deep.equal([1000, 2000]);
          expect(h.server.requests).to.have.length(3);
          const retries = h.logged('llm request failed, retrying');
          expect(retries.map((r) => [r['attempt'], r['delayMs']])).to.deep.equal([
            [1, 1000],
            [2, 2000],
          ]);
          expect(retries[0]?.['maxAttempts']).to.equal(3);
          h.server.assertAllUsed();
        },
        { timeoutMs: 60 },
      );
    });
  }

  it('K1 gives up after 3 attempts with a service error naming the endpoint', async () => {
    await withLlm(
      { replies: [{ purpose: 'planning', times: 3, fault: 'server_error' }] },
      async (h) => {
        const error = await failure(h.llm.chat(ask()));

        expect(error).to.be.instanceOf(ExternalServiceError);
        const service = error as ExternalServiceError;
        expect(service.status).to.equal(500);
        expect(service.message).to.contain('failed after 3 attempts (server)');
        expect(service.where).to.contain(h.server.url);
        expect(hintOf(service)).to.contain('llm.profiles');
        expect(h.clock.sleeps).to.deep.equal([1000, 2000]);
        expect(h.server.requests).to.have.length(3);
      },
    );
  });

  it("K1 the SDK's own retries are off: with llm.max_attempts 1 a 500 is sent once", async () => {
    const scenario: ScenarioInput = { replies: [{ fault: 'server_error', times: 0 }] };
    await withLlm(
      scenario,
      async (h) => {
        const error = await failure(h.llm.chat(ask()));
        expect(error.message).to.contain('failed after 1 attempt (server)');
        expect(h.server.requests).to.have.length(1);
      },
      { llm: { max_attempts: 1 } },
    );
  });

  it('K1 uses llm.max_attempts: backoff doubles 1 s, 2 s, 4 s', async () => {
    const scenario: ScenarioInput = {
      replies: [{ purpose: 'planning', times: 4, fault: 'server_error' }],
    };
    await withLlm(
      scenario,
      async (h) => {
        await failure(h.llm.chat(ask()));
        expect(h.clock.sleeps).to.deep.equal([1000, 2000, 4000]);
      },
      { llm: { max_attempts: 4 } },
    );
  });

  it('K1 honours Retry-After on 429: seconds, an HTTP date, and at most 120 s', async () => {
    const clockStart = new FakeClock().now();
    const scenario: ScenarioInput = {
      replies: [
        { purpose: 'planning', fault: 'rate_limit', retry_after: 5 },
        // 5 s later on the fake clock, plus 7 s
        {
          purpose: 'planning',
          fault: { status: 429 },
          retry_after: new Date(clockStart + 12_000).toUTCString(),
        },
        { purpose: 'planning', fault: 'rate_limit', retry_after: 3600 },
        { purpose: 'planning', content: 'ok' },
      ],
    };
    await withLlm(
      scenario,
      async (h) => {
        expect((await h.llm.chat(ask())).content).to.equal('ok');
        expect(h.clock.sleeps).to.deep.equal([5000, 7000, 120_000]);
        h.server.assertAllUsed();
      },
      { llm: { max_attempts: 4 } },
    );
  });

  const refused: [number, string][] = [
    [400, 'bad_request'],
    [401, 'unauthorized'],
    [403, 'forbidden'],
    [404, '404'],
    [422, '422'],
  ];
  for (const [status, fault] of refused) {
    it(`K1 does not retry a ${status}`, async () => {
      const scripted = (/^\d+$/.test(fault) ? { status } : fault) as ScriptedReplyInput['fault'];
      await withLlm({ replies: [{ purpose: 'planning', fault: scripted }] }, async (h) => {
        const error = await failure(h.llm.chat(ask()));

        expect(error).to.be.instanceOf(ExternalServiceError);
        expect((error as ExternalServiceError).status).to.equal(status);
        expect(error.message).to.contain(`was refused (${status})`);
        expect(h.server.requests).to.have.length(1);
        expect(h.clock.sleeps).to.deep.equal([]);
      });
    });
  }

  it('K1 a wrong key is refused with a hint naming the key variable, and the key is never logged', async () => {
    await withLlm(
      { replies: [] },
      async (h) => {
        const error = await failure(h.llm.chat(ask()));
        expect((error as ExternalServiceError).status).to.equal(401);
        expect(hintOf(error)).to.contain('llm.api_key_variable');
        expect(h.server.requests[0]?.outcome).to.equal('unauthorized');
        expect(h.lines.join('\n')).not.to.contain('sk-wrong');
      },
      { env: { OPENAI_API_KEY: 'sk-wrong-key' } },
    );
  });

  it('K1 fails fast with a ConfigError when the key variable is not set', () => {
    const build = () =>
      new OpenAiLlm({
        llm: llmConfig({ api_key_variable: 'MY_LLM_KEY' }),
        env: {},
        logger: createSilentLogger(),
      });
    expect(build).to.throw(ConfigError, 'MY_LLM_KEY');
  });

  it('K1 a cancelled request ends with CancelledError and no retry', async () => {
    await withLlm({ replies: [{ purpose: 'planning', fault: 'hang' }] }, async (h) => {
      const controller = new AbortController();
      const pending = h.llm.chat({ ...ask(), signal: controller.signal });
      // cancel once the request is on the server (not after a fixed delay, which a
      // loaded machine can outrun before the request is even sent)
      while (h.server.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
      controller.abort();
      const error = await failure(pending);
      expect(error).to.be.instanceOf(CancelledError);
      expect(h.server.requests).to.have.length(1);
    });
  });

  it('K3 sends reasoning effort and temperature per role, and the role model', async () => {
    const scenario: ScenarioInput = { replies: [{ content: 'a' }, { content: 'b' }] };
    const roles = {
      ...llmConfig().roles,
      review: { model: 'model-review', reasoning_effort: 'high' as const, temperature: 0.2 },
    };
    await withLlm(
      scenario,
      async (h) => {
        await h.llm.chat({ ...ask('review.execution'), role: 'review' });
        await h.llm.chat(ask('planning'));

        const [review, planning] = h.server.requests;
        expect(review?.body).to.include({
          model: 'model-review',
          reasoning_effort: 'high',
          temperature: 0.2,
        });
        expect(planning?.body).to.include({ model: 'model-a' });
        expect(planning?.body).not.to.have.any.keys('reasoning_effort', 'temperature');
      },
      { llm: { roles } },
    );
  });
});
