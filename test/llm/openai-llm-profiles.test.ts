import { expect } from 'chai';
import type { ChatRequest } from '../../src/core/llm-port.ts';
import type { ScenarioInput } from '../../src/testkit/openai-server/scenario.ts';
import { startScriptedOpenAiServer } from '../../src/testkit/openai-server/server.ts';
import { withLlm } from './helpers.ts';

const review: ChatRequest = {
  purpose: 'review.planning',
  role: 'review',
  messages: [{ role: 'user', content: 'Review the plan.' }],
};

describe('llm/openai-llm model profiles (K3)', () => {
  it('K3 on a rate limit falls over to the next profile at once, and the limited one cools down for 120 s', async () => {
    const scenario: ScenarioInput = {
      replies: [
        { model: 'model-a', fault: 'rate_limit', retry_after: 30 },
        { model: 'model-b', content: 'from b', times: 2 },
        { model: 'model-a', content: 'from a again' },
      ],
    };
    await withLlm(
      scenario,
      async (h) => {
        expect((await h.llm.chat(review)).content).to.equal('from b');
        expect(h.clock.sleeps).to.deep.equal([]); // no waiting: another candidate was ready

        h.clock.advance(119_000);
        expect((await h.llm.chat(review)).content).to.equal('from b'); // a is still cooling

        h.clock.advance(1_000);
        expect((await h.llm.chat(review)).content).to.equal('from a again');

        expect(h.server.requests.map((r) => r.model)).to.deep.equal([
          'model-a',
          'model-b',
          'model-b',
          'model-a',
        ]);
        const switched = h.logged('llm profile rate-limited, using the next one');
        expect(switched).to.have.length(1);
        expect(switched[0]).to.include({ to: 'backup', coolDownSec: 120 });
        h.server.assertAllUsed();
      },
      { llm: { profiles: [{ name: 'backup', model: 'model-b' }] } },
    );
  });

  it('K3 when every candidate is rate-limited, waits per Retry-After and retries the one that cools first', async () => {
    const scenario: ScenarioInput = {
      replies: [
        { model: 'model-a', fault: 'rate_limit', retry_after: 4 },
        { model: 'model-b', fault: 'rate_limit', retry_after: 6 },
        { model: 'model-a', content: 'a recovered' },
      ],
    };
    await withLlm(
      scenario,
      async (h) => {
        expect((await h.llm.chat(review)).content).to.equal('a recovered');
        expect(h.clock.sleeps).to.deep.equal([6000]);
        expect(h.server.requests.map((r) => r.model)).to.deep.equal([
          'model-a',
          'model-b',
          'model-a',
        ]);
      },
      { llm: { profiles: [{ model: 'model-b' }] } },
    );
  });

  it('K3 profiles serve only the roles they name; other errors do not fall over', async () => {
    const scenario: ScenarioInput = {
      replies: [
        { model: 'model-a', purpose: 'review.planning', fault: 'server_error' },
        { model: 'model-a', purpose: 'review.planning', content: 'review on a' },
        { model: 'model-a', purpose: 'planning', fault: 'rate_limit' },
        { model: 'model-a', purpose: 'planning', content: 'planning on a' },
      ],
    };
    await withLlm(
      scenario,
      async (h) => {
        expect((await h.llm.chat(review)).content).to.equal('review on a'); // 500: retried, no fall-over
        const planning = await h.llm.chat({ ...review, purpose: 'planning', role: 'planning' });
        expect(planning.content).to.equal('planning on a'); // the review-only profile is not used
        expect(h.server.requests.every((r) => r.model === 'model-a')).to.equal(true);
        expect(h.clock.sleeps).to.deep.equal([1000, 1000]);
      },
      { llm: { profiles: [{ model: 'model-b', roles: ['review'] }] } },
    );
  });

  it('K3 a profile may use its own endpoint and key variable', async () => {
    const other = await startScriptedOpenAiServer({
      scenario: { replies: [{ model: 'model-c', content: 'from the other endpoint' }] },
      apiKey: 'sk-other-endpoint-key',
    });
    try {
      await withLlm(
        { replies: [{ model: 'model-a', fault: 'rate_limit' }] },
        async (h) => {
          expect((await h.llm.chat(review)).content).to.equal('from the other endpoint');
          h.server.assertAllUsed();
          other.assertAllUsed();
        },
        {
          llm: {
            profiles: [{ model: 'model-c', base_url: other.url, api_key_variable: 'OTHER_KEY' }],
          },
          env: { OTHER_KEY: 'sk-other-endpoint-key' },
        },
      );
    } finally {
      await other.close();
    }
  });
});
