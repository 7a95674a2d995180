import { expect } from 'chai';
import { MASK, Redactor } from '../../src/log/redact.ts';

const SECRET = 'glpat-S3cr3tValue-xyz"\\42';

const b64 = (bytes: Buffer) => bytes.toString('base64');
const reverse = (text: string) => [...text].reverse().join('');
const hex = (text: string) => Buffer.from(text, 'utf8').toString('hex');

/** The forms a command or a model may turn a secret into (issue 19 §3). */
const FORMS: Array<[string, string]> = [
  ['plain', `token=${SECRET};`],
  ['base64 at offset 0', b64(Buffer.from(`${SECRET}\n`))],
  ['base64 at offset 1', b64(Buffer.from(`A=${SECRET}\nHOME=/root`))],
  ['base64 at offset 2', b64(Buffer.from(`AB=${SECRET}\nHOME=/root`))],
  ['base64 of a whole environ block', b64(Buffer.from(`PATH=/bin\0TOKEN=${SECRET}\0HOME=/x`))],
  ['base64url', Buffer.from(`xy${SECRET}`).toString('base64url')],
  ['hex', hex(`TOKEN=${SECRET}`)],
  ['upper-case hex', hex(`TOKEN=${SECRET}`).toUpperCase()],
  ['reversed', reverse(`TOKEN=${SECRET}`)],
  ['reversed, then hex', hex(reverse(`TOKEN=${SECRET}\n`))],
  ['hex, then reversed', reverse(hex(SECRET))],
  ['reversed, then base64', b64(Buffer.from(`a${reverse(SECRET)}`))],
  ['URL-encoded', `q=${encodeURIComponent(SECRET)}`],
  ['JSON-escaped', JSON.stringify({ env: `TOKEN=${SECRET}` })],
];

describe('log/redact: every encoding of a secret (issue 19 §3)', () => {
  const redactor = new Redactor();
  redactor.add(SECRET);

  for (const [name, text] of FORMS) {
    it(`masks the ${name} form`, () => {
      const out = redactor.redact(`before ${text} after`);
      expect(out).to.contain(MASK);
      expect(redactor.findSecret(out), name).to.equal(false);
    });

    it(`finds the ${name} form before a write (findSecret)`, () => {
      expect(redactor.findSecret(`x ${text} y`)).to.equal(true);
    });
  }

  it('leaves ordinary text, hex digests and base64 of other values alone', () => {
    const text = `commit ${'a1b2c3d4'.repeat(5)} ${b64(Buffer.from('hello world, nothing secret here'))}`;
    expect(redactor.redact(text)).to.equal(text);
    expect(redactor.findSecret(text)).to.equal(false);
  });
});

describe('log/redact: what is not a secret (issue 19 §9)', () => {
  it('the variable names listed in MR_AGENT_SECRET_VARIABLES are not masked, their values are', () => {
    const redactor = new Redactor();
    const env = {
      MR_AGENT_SECRET_VARIABLES: 'DATABASE_DSN,DEPLOY_HOOK',
      DATABASE_DSN: 'postgres://u:pw@db/x',
      DEPLOY_HOOK: 'https://hooks.example/abcdef',
    };
    redactor.addFromEnv(env, ['DATABASE_DSN', 'DEPLOY_HOOK']);
    const text = 'set DATABASE_DSN and DEPLOY_HOOK (DATABASE_DSN,DEPLOY_HOOK)';
    expect(redactor.redact(text)).to.equal(text);
    expect(redactor.redact(`dsn ${env.DATABASE_DSN}`)).to.equal(`dsn ${MASK}`);
  });
});
