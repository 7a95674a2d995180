import { expect } from 'chai';
import { describeError } from '../../src/errors/catalog.ts';
import {
  CancelledError,
  CommandFailedError,
  ConfigError,
  ExternalServiceError,
  LimitReachedError,
  ModelBehaviorError,
  UsageError,
} from '../../src/errors/errors.ts';
import { exitCodeFor } from '../../src/errors/exit-code.ts';

describe('errors', () => {
  const cases: Array<{ error: unknown; code: number }> = [
    { error: new ConfigError('bad'), code: 2 },
    { error: new UsageError('bad'), code: 2 },
    { error: new ExternalServiceError('gitlab', 'down', { status: 503 }), code: 1 },
    { error: new ModelBehaviorError('garbage', { purpose: 'planning' }), code: 1 },
    { error: new CommandFailedError('npm ci', 'failed', { exitCode: 1 }), code: 1 },
    { error: new LimitReachedError('max_loops', 10, 'too many loops'), code: 1 },
    { error: new CancelledError('stopped'), code: 1 },
    { error: new Error('boom'), code: 1 },
    { error: 'a string', code: 1 },
  ];
  for (const { error, code } of cases) {
    it(`maps ${error instanceof Error ? error.name : typeof error} to exit code ${code}`, () => {
      expect(exitCodeFor(error)).to.equal(code);
    });
  }

  it('describes an error as one line with where, every problem and a hint', () => {
    const error = new ConfigError('invalid configuration (2 problems)', {
      where: '.mr-agent.yml',
      problems: ['a: expected x', 'b: expected y'],
    });

    const { message, details } = describeError(error);

    expect(message).to.equal('.mr-agent.yml: invalid configuration (2 problems)');
    expect(details).to.deep.equal([
      '  - a: expected x',
      '  - b: expected y',
      `hint: ${details[2]!.slice(6)}`,
    ]);
    expect(details[2]).to.match(/^hint: /);
  });

  it('lists at most 20 problems and counts the rest (a broken file can have thousands)', () => {
    const problems = Array.from({ length: 1998 }, (_, i) => `line ${i + 1}: bad`);
    const { details } = describeError(new ConfigError('invalid configuration', { problems }));

    expect(details).to.have.length(22);
    expect(details[19]).to.equal('  - line 20: bad');
    expect(details[20]).to.equal('  … and 1978 more problems');
  });

  it('an unexpected error is called internal, without a stack trace', () => {
    const { message, details } = describeError(new TypeError('x is undefined'));

    expect(message).to.equal('internal error: x is undefined');
    expect(details.join('\n')).not.to.contain('at ');
  });

  it('keeps the cause and the blame', () => {
    const cause = new Error('ECONNRESET');
    const error = new ExternalServiceError('llm', 'request failed', { cause, status: 502 });

    expect(error.cause).to.equal(cause);
    expect(error.blame).to.equal('service');
    expect(error.status).to.equal(502);
    expect(error.name).to.equal('ExternalServiceError');
  });

  it('recognises an agent error from a second copy of the module (dynamic import under a CommonJS loader)', async () => {
    const copy = await import('../../src/errors/errors.ts');
    const error = new copy.UsageError('bad flag');

    expect(exitCodeFor(error)).to.equal(2);
    expect(describeError(error).message).to.equal('bad flag');
  });
});
