import { expect } from 'chai';
import { z } from 'zod';
import {
  candidatesFor,
  CoolDowns,
  DEFAULT_BASE_URL,
  roleSettings,
} from '../../src/llm/profiles.ts';
import { responseFormatFor, topOf } from '../../src/llm/response-format.ts';
import { backoffMs, MAX_RETRY_AFTER_MS, retryAfterMs } from '../../src/llm/retry-policy.ts';
import { UsageLedger } from '../../src/llm/usage-ledger.ts';
import { FakeClock } from '../../src/core/clock.ts';
import { llmConfig } from './helpers.ts';

describe('llm policies', () => {
  describe('profiles (K3)', () => {
    it('K3 the role model (or llm.model) comes first, then the profiles that serve the role', () => {
      const llm = llmConfig({
        model: 'main',
        profiles: [
          { name: 'cheap', model: 'small', roles: ['execution'] },
          { model: 'backup', base_url: 'https://other.example/v1', api_key_variable: 'OTHER' },
          { model: 'main' }, // the same endpoint and model again: dropped
        ],
        roles: {
          ...llmConfig().roles,
          review: { model: 'reviewer', reasoning_effort: 'low', temperature: 0 },
        },
      });

      expect(candidatesFor('execution', llm).map((c) => c.name)).to.deep.equal([
        `main@${DEFAULT_BASE_URL}`,
        'cheap',
        'backup@https://other.example/v1',
      ]);
      const review = candidatesFor('review', llm);
      expect(review.map((c) => c.model)).to.deep.equal(['reviewer', 'backup', 'main']);
      expect(review[1]).to.include({
        apiKeyVariable: 'OTHER',
        baseURL: 'https://other.example/v1',
      });
      expect(roleSettings('review', llm)).to.deep.equal({ reasoningEffort: 'low', temperature: 0 });
      expect(roleSettings('planning', llm)).to.deep.equal({
        reasoningEffort: undefined,
        temperature: undefined,
      });
    });

    it('K3 a cooled candidate is skipped until its cool-down ends', () => {
      const clock = new FakeClock();
      const coolDowns = new CoolDowns(clock, 120_000);
      const [a, b] = candidatesFor('planning', llmConfig({ profiles: [{ model: 'b' }] }));
      coolDowns.coolDown(a!);
      expect(coolDowns.pick([a!, b!])).to.equal(b);
      clock.advance(1000);
      coolDowns.coolDown(b!);
      expect(coolDowns.pick([a!, b!])).to.equal(a); // all cooling: the one that cools first
      clock.advance(119_000);
      expect(coolDowns.isCooling(a!)).to.equal(false);
      expect(coolDowns.isCooling(b!)).to.equal(true);
    });
  });

  describe('retry policy (K1)', () => {
    it('K1 backoff doubles from 1 s', () => {
      expect([1, 2, 3].map(backoffMs)).to.deep.equal([1000, 2000, 4000]);
    });

    it('K1 reads retry-after-ms, Retry-After seconds and HTTP dates, capped', () => {
      const now = Date.parse('2026-01-01T00:00:00Z');
      const h = (init: Record<string, string>) => new Headers(init);
      expect(retryAfterMs(h({ 'retry-after-ms': '1500' }), now)).to.equal(1500);
      expect(retryAfterMs(h({ 'retry-after': '2' }), now)).to.equal(2000);
      expect(retryAfterMs(h({ 'retry-after': 'Thu, 01 Jan 2026 00:00:09 GMT' }), now)).to.equal(
        9000,
      );
      expect(retryAfterMs(h({ 'retry-after': 'Wed, 31 Dec 2025 00:00:00 GMT' }), now)).to.equal(0);
      expect(retryAfterMs(h({ 'retry-after': '86400' }), now)).to.equal(MAX_RETRY_AFTER_MS);
      expect(retryAfterMs(h({ 'retry-after': 'soon' }), now)).to.equal(undefined);
      expect(retryAfterMs(h({}), now)).to.equal(undefined);
    });
  });

  describe('response format (K2)', () => {
    it('K2 marks the schema strict only when OpenAI strict mode can take it', () => {
      const strict = responseFormatFor(
        z.object({ a: z.string(), b: z.array(z.number()) }),
        'my plan!',
      );
      expect(strict.json_schema).to.include({ name: 'my_plan_', strict: true });
      expect(strict.json_schema.schema).not.to.have.property('$schema');
      const loose = responseFormatFor(z.object({ a: z.string().optional() }), 'x');
      expect(loose.json_schema.strict).to.equal(false);
    });

    it('knows which top-level value a schema wants', () => {
      expect(topOf(z.object({}))).to.equal('object');
      expect(topOf(z.array(z.string()))).to.equal('array');
      expect(topOf(z.union([z.string(), z.number()]))).to.equal('any');
    });
  });

  describe('usage ledger (K2, H1)', () => {
    it('K2 sums tokens per role, purpose and model', () => {
      const ledger = new UsageLedger();
      const u = (p: number, c: number) => ({
        promptTokens: p,
        completionTokens: c,
        totalTokens: p + c,
      });
      ledger.record('planning', 'planning', 'm', u(100, 10));
      ledger.record('review', 'review.planning', 'm', u(50, 5));
      ledger.record('review', 'review.planning', 'm', u(50, 5));
      ledger.record('review', 'review.execution', 'other', u(1, 1));

      expect(ledger.entries()).to.have.length(3);
      expect(ledger.entries()[1]).to.deep.include({
        purpose: 'review.planning',
        calls: 2,
        totalTokens: 110,
      });
      expect(ledger.byRole().get('review')).to.deep.equal({
        calls: 3,
        promptTokens: 101,
        completionTokens: 11,
        totalTokens: 112,
      });
      expect(ledger.byPurpose().get('planning')?.calls).to.equal(1);
      expect(ledger.total().totalTokens).to.equal(222);
      expect(new UsageLedger().total()).to.deep.equal({
        calls: 0,
        promptTokens: 0,
        completionTokens: 0,
        totalTokens: 0,
      });
    });
  });
});
