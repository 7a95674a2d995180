import { expect } from 'chai';
import { createMemoryLogger } from '../../src/log/logger.ts';
import { MASK, Redactor, looksLikeSecretName } from '../../src/log/redact.ts';

const SECRET = 'glpat-S3cr3tValue-xyz';

describe('log/redact', () => {
  it('L1 a secret from the environment never reaches logger output, plainly or base64-encoded', () => {
    const redactor = new Redactor();
    redactor.addFromEnv({ MR_AGENT_GITLAB_TOKEN: SECRET, PATH: '/usr/bin' });
    const base64 = Buffer.from(SECRET).toString('base64');
    for (const format of ['json', 'text'] as const) {
      const { logger, lines } = createMemoryLogger({ redactor, format });

      logger.info(`pushing with ${SECRET}`, {
        header: `Basic ${base64}`,
        nested: { url: `https://oauth2:${SECRET}@gitlab.example/x.git` },
      });
      logger.warn('failed', { error: new Error(`bad token ${SECRET}`).message });

      const output = lines.join('\n');
      expect(output, format).not.to.contain(SECRET);
      expect(output, format).not.to.contain(base64);
      expect(output, format).to.contain(MASK);
    }
  });

  it('L1 masks values of configured secret variables whatever their name', () => {
    const redactor = new Redactor();
    redactor.addFromEnv({ DATABASE_URL_VALUE: 'postgres://u:pw@db/x' }, ['DATABASE_URL_VALUE']);

    expect(redactor.redact('connect postgres://u:pw@db/x now')).to.equal(`connect ${MASK} now`);
  });

  it('L1 masks URL-encoded forms', () => {
    const redactor = new Redactor();
    redactor.add('p@ss/word+1');

    expect(redactor.redact(`x=${encodeURIComponent('p@ss/word+1')}`)).to.equal(`x=${MASK}`);
  });

  it('does not mask short or boolean-like values', () => {
    const redactor = new Redactor();
    redactor.addFromEnv({ SOME_TOKEN: 'true', API_KEY: 'abc' });

    expect(redactor.size).to.equal(0);
    expect(redactor.redact('true abc')).to.equal('true abc');
  });

  it('treats names that only name a variable as not secret', () => {
    expect(looksLikeSecretName('MR_AGENT_LLM_API_KEY_VAR')).to.equal(false);
    expect(looksLikeSecretName('OPENAI_API_KEY')).to.equal(true);
    expect(looksLikeSecretName('MR_AGENT_WEBHOOK_SECRET')).to.equal(true);
    expect(looksLikeSecretName('CI_JOB_TOKEN')).to.equal(true);
  });

  it("B3 a cache key is not a secret: the component's `MR_AGENT_CACHE_KEY=mr-agent` leaves notes and logs readable", () => {
    const redactor = new Redactor();
    redactor.addFromEnv({ MR_AGENT_CACHE_KEY: 'mr-agent', OPENAI_API_KEY: SECRET });

    expect(looksLikeSecretName('MR_AGENT_CACHE_KEY')).to.equal(false);
    expect(redactor.redact(`## 🤖 mr-agent · .mr-agent/ ${SECRET}`)).to.equal(
      `## 🤖 mr-agent · .mr-agent/ ${MASK}`,
    );
  });

  it('redacts every string inside a structured value', () => {
    const redactor = new Redactor();
    redactor.add(SECRET);

    expect(redactor.redactValue({ a: [`x ${SECRET}`], b: 1 })).to.deep.equal({
      a: [`x ${MASK}`],
      b: 1,
    });
  });
});
