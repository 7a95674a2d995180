import { expect } from 'chai';
import { ConfigError } from '../../../src/errors/errors.ts';
import { loadScenario, type ScenarioInput } from '../../../src/testkit/openai-server/scenario.ts';
import {
  startScriptedOpenAiServer,
  type ScriptedOpenAiServer,
} from '../../../src/testkit/openai-server/server.ts';

async function withServer(
  scenario: ScenarioInput | string,
  run: (server: ScriptedOpenAiServer) => Promise<void>,
  apiKey?: string,
): Promise<void> {
  const server = await startScriptedOpenAiServer({
    scenario,
    now: () => 1_750_000_000_000,
    apiKey,
  });
  try {
    await run(server);
  } finally {
    await server.close();
  }
}

async function post(
  server: ScriptedOpenAiServer,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${server.url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

const chat = (text: string, extra: Record<string, unknown> = {}) => ({
  model: 'gpt-test',
  messages: [
    { role: 'system', content: 'You are a test.' },
    { role: 'user', content: text },
  ],
  ...extra,
});

describe('testkit/openai-server', () => {
  it('answers with a body shaped like the Chat Completions API', async () => {
    await withServer(
      { replies: [{ purpose: 'planning', content: 'Hello there.' }] },
      async (server) => {
        const res = await post(server, chat('hi'), { 'X-Agent-Purpose': 'planning' });
        expect(res.status).to.equal(200);
        expect(res.headers.get('content-type')).to.equal('application/json');
        const body = (await res.json()) as Record<string, unknown>;

        expect(body).to.include({
          object: 'chat.completion',
          created: 1_750_000_000,
          model: 'gpt-test',
        });
        expect(body['id']).to.match(/^chatcmpl-/);
        expect(body['choices']).to.deep.equal([
          {
            index: 0,
            message: { role: 'assistant', content: 'Hello there.', refusal: null, annotations: [] },
            logprobs: null,
            finish_reason: 'stop',
          },
        ]);
        const usage = body['usage'] as Record<string, number>;
        expect(usage['prompt_tokens']).to.be.within(10, 40);
        expect(usage['completion_tokens']).to.be.within(2, 10);
        expect(usage['total_tokens']).to.equal(
          usage['prompt_tokens']! + usage['completion_tokens']!,
        );
        server.assertAllUsed();
      },
    );
  });

  it('answers tool calls with arguments as JSON text and finish_reason tool_calls', async () => {
    const scenario: ScenarioInput = {
      replies: [
        {
          tool_calls: [
            { name: 'read_file', arguments: { path: 'a.ts' } },
            { name: 'list_files', arguments: '{}' },
          ],
        },
      ],
    };
    await withServer(scenario, async (server) => {
      const body = (await (await post(server, chat('x'))).json()) as {
        choices: { message: Record<string, unknown>; finish_reason: string }[];
      };
      const [choice] = body.choices;
      expect(choice?.finish_reason).to.equal('tool_calls');
      expect(choice?.message['content']).to.equal(null);
      expect(choice?.message['tool_calls']).to.deep.equal([
        {
          id: 'call_1_1',
          type: 'function',
          function: { name: 'read_file', arguments: '{"path":"a.ts"}' },
        },
        { id: 'call_1_2', type: 'function', function: { name: 'list_files', arguments: '{}' } },
      ]);
    });
  });

  it('matches by purpose (exact or prefix), model and substrings of the last messages; replies in sequence', async () => {
    const scenario = `
replies:
  - purpose: review.*
    content: any review
  - purpose: planning
    contains: [second]
    content: planning with second
  - purpose: planning
    content: planning one
  - purpose: planning
    content: planning two
  - model: other-model
    contains: system-text
    window: 2
    content: by model
`;
    await withServer(scenario, async (server) => {
      const text = async (res: Response) =>
        ((await res.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message
          .content;
      const planning = { 'X-Agent-Purpose': 'planning' };
      expect(await text(await post(server, chat('first'), planning))).to.equal('planning one');
      expect(await text(await post(server, chat('the second'), planning))).to.equal(
        'planning with second',
      );
      expect(await text(await post(server, chat('third'), planning))).to.equal('planning two');
      expect(
        await text(await post(server, chat('r'), { 'X-Agent-Purpose': 'review.execution' })),
      ).to.equal('any review');
      const byModel = {
        model: 'other-model',
        messages: [
          { role: 'system', content: 'system-text' },
          { role: 'user', content: 'u' },
        ],
      };
      expect(await text(await post(server, byModel))).to.equal('by model');
      server.assertAllUsed();
      expect(server.requests.map((r) => r.replyIndex)).to.deep.equal([2, 1, 3, 0, 4]);
    });
  });

  it('an unexpected request gets a 400 and assertAllUsed reports it and unused replies', async () => {
    await withServer({ replies: [{ purpose: 'planning', content: 'x' }] }, async (server) => {
      const res = await post(server, chat('x'), { 'X-Agent-Purpose': 'execution' });
      expect(res.status).to.equal(400);
      const body = (await res.json()) as { error: Record<string, unknown> };
      expect(body.error).to.include({ type: 'invalid_request_error', code: 'no_scripted_reply' });
      expect(() => server.assertAllUsed()).to.throw(
        /unused reply #1 purpose=planning.*request #1 \(purpose execution\) had no scripted reply/,
      );
    });
  });

  it('injects 429 with Retry-After, 5xx and client errors with OpenAI error bodies', async () => {
    const scenario: ScenarioInput = {
      replies: [
        { fault: 'rate_limit', retry_after: 7 },
        { fault: 'server_error' },
        { fault: { status: 503, message: 'overloaded', type: 'server_error' } },
        { fault: 'forbidden' },
      ],
    };
    await withServer(scenario, async (server) => {
      const limited = await post(server, chat('a'));
      expect(limited.status).to.equal(429);
      expect(limited.headers.get('retry-after')).to.equal('7');
      expect(((await limited.json()) as { error: { code: string } }).error.code).to.equal(
        'rate_limit_exceeded',
      );
      expect((await post(server, chat('b'))).status).to.equal(500);
      const overloaded = await post(server, chat('c'));
      expect(overloaded.status).to.equal(503);
      expect(await overloaded.json()).to.deep.equal({
        error: { message: 'overloaded', type: 'server_error', param: null, code: null },
      });
      expect((await post(server, chat('d'))).status).to.equal(403);
      expect(server.requests.map((r) => r.outcome)).to.deep.equal([
        'fault',
        'fault',
        'fault',
        'fault',
      ]);
    });
  });

  it('injects a malformed body, a connection reset and a hang', async () => {
    const scenario: ScenarioInput = {
      replies: [{ fault: 'malformed' }, { fault: 'reset' }, { fault: 'hang' }],
    };
    await withServer(scenario, async (server) => {
      const malformed = await post(server, chat('a'));
      expect(malformed.status).to.equal(200);
      await malformed
        .text()
        .then((text) => expect(() => JSON.parse(text) as unknown).to.throw(SyntaxError));
      const reset = await post(server, chat('b')).then(
        () => 'answered',
        (error: Error) => error.message,
      );
      expect(reset).to.equal('fetch failed');
      const hung = await fetch(`${server.url}/chat/completions`, {
        method: 'POST',
        body: JSON.stringify(chat('c')),
        signal: AbortSignal.timeout(50),
      }).then(
        () => 'answered',
        (error: Error) => error.name,
      );
      expect(hung).to.equal('TimeoutError');
      server.assertAllUsed();
    });
  });

  it('refuses JSON-schema response formats when the scenario says so, like endpoints without structured output', async () => {
    const scenario: ScenarioInput = {
      json_schema: false,
      replies: [{ content: 'plain', times: 0 }],
    };
    await withServer(scenario, async (server) => {
      const format = {
        type: 'json_schema',
        json_schema: { name: 'plan', schema: { type: 'object' } },
      };
      const refused = await post(server, chat('a', { response_format: format }));
      expect(refused.status).to.equal(400);
      expect(((await refused.json()) as { error: { param: string } }).error.param).to.equal(
        'response_format',
      );
      expect(
        (await post(server, chat('b', { response_format: { type: 'json_object' } }))).status,
      ).to.equal(200);
      expect((await post(server, chat('c'))).status).to.equal(200);
      expect(server.requests.map((r) => [r.outcome, r.responseFormat])).to.deep.equal([
        ['refused', 'json_schema:plan'],
        ['reply', 'json_object'],
        ['reply', undefined],
      ]);
      server.assertAllUsed(); // times: 0 never counts as unused
    });
  });

  it('lists models, checks the key when one is set, and rejects bad requests', async () => {
    await withServer(
      { models: ['m-1', 'm-2'], replies: [] },
      async (server) => {
        const auth = { authorization: 'Bearer sk-right' };
        const models = await fetch(`${server.url}/models`, { headers: auth });
        const list = (await models.json()) as {
          object: string;
          data: { id: string; object: string }[];
        };
        expect(list.object).to.equal('list');
        expect(list.data.map((m) => [m.id, m.object])).to.deep.equal([
          ['m-1', 'model'],
          ['m-2', 'model'],
        ]);
        expect(
          (await post(server, chat('x'), { authorization: 'Bearer sk-wrong' })).status,
        ).to.equal(401);
        expect((await post(server, { model: 'm' }, auth)).status).to.equal(400);
        expect((await post(server, chat('x', { stream: true }), auth)).status).to.equal(400);
        expect((await fetch(`${server.url}/embeddings`, { headers: auth })).status).to.equal(404);
        expect(server.requests.map((r) => r.outcome)).to.deep.equal([
          'other',
          'unauthorized',
          'invalid',
          'invalid',
          'other',
        ]);
      },
      'sk-right',
    );
  });

  it('answers 413 to a body over maxBodyBytes instead of dropping the connection', async () => {
    const server = await startScriptedOpenAiServer({
      scenario: { replies: [] },
      maxBodyBytes: 1024,
    });
    try {
      const response = await post(server, chat('x'.repeat(100_000)));
      expect(response.status).to.equal(413);
      expect(((await response.json()) as { error: { message: string } }).error.message).to.equal(
        'Request body larger than 1024 bytes.',
      );
    } finally {
      await server.close();
    }
  });

  it('a bad scenario is a ConfigError naming the key', () => {
    expect(() => loadScenario('replies:\n  - fault: explode\n', 'demo.yml')).to.throw(ConfigError);
    let caught: unknown;
    try {
      loadScenario({ replies: [{ times: -1 }] } as ScenarioInput, 'demo.yml');
    } catch (error) {
      caught = error;
    }
    expect(caught).to.be.instanceOf(ConfigError);
    expect((caught as ConfigError).problems.join('\n')).to.contain('demo.yml.replies.0.times');
    expect(() => loadScenario('replies: [', 'x.yml')).to.throw(
      ConfigError,
      'x.yml is not valid YAML',
    );
  });
});
