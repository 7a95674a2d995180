import { expect } from 'chai';
import { isResolved, resolveConfig } from '../../src/config/resolve.ts';
import { fileSource } from '../../src/config/file-source.ts';
import { envSource } from '../../src/config/sources.ts';

function problemsOf(result: ReturnType<typeof resolveConfig>): string[] {
  return isResolved(result) ? [] : result.problems;
}

describe('budget configuration', () => {
  it('budgets are off by default', () => {
    const result = resolveConfig([]);
    if (!isResolved(result)) throw new Error(result.problems.join('; '));
    expect(result.config.budget.max_usd).to.equal(null);
    expect(result.config.budget.max_tokens).to.equal(null);
    expect(result.config.budget.mr_max_usd).to.equal(null);
  });

  it('reads MR_AGENT_BUDGET_USD, MR_AGENT_BUDGET_TOKENS and MR_AGENT_MR_BUDGET_USD', () => {
    const result = resolveConfig([
      envSource({
        MR_AGENT_BUDGET_USD: '2.5',
        MR_AGENT_BUDGET_TOKENS: '50000',
        MR_AGENT_MR_BUDGET_USD: '10',
      }),
    ]);
    if (!isResolved(result)) throw new Error(result.problems.join('; '));
    expect(result.config.budget).to.deep.equal({ max_usd: 2.5, max_tokens: 50000, mr_max_usd: 10 });
  });

  for (const [name, text] of [
    ['negative', '-1'],
    ['zero', '0'],
    ['non-numeric', 'two dollars'],
  ] as const) {
    it(`a ${name} budget is a configuration error naming the key`, () => {
      const problems = problemsOf(
        resolveConfig([
          envSource({
            MR_AGENT_BUDGET_USD: text,
            MR_AGENT_BUDGET_TOKENS: text,
            MR_AGENT_MR_BUDGET_USD: text,
          }),
        ]),
      );
      expect(problems).to.have.length(3);
      expect(problems[0]).to.contain('MR_AGENT_BUDGET_USD (budget.max_usd)');
      expect(problems[0]).to.contain('> 0');
      expect(problems.join('\n')).to.contain('budget.max_tokens');
      expect(problems.join('\n')).to.contain('budget.mr_max_usd');
    });
  }

  it('a zero budget in .mr-agent.yml names the file and the key', () => {
    const problems = problemsOf(
      resolveConfig([fileSource('budget:\n  max_tokens: 0\n', '.mr-agent.yml')]),
    );
    expect(problems).to.have.length(1);
    expect(problems[0]).to.match(/\.mr-agent\.yml.*budget\.max_tokens.*> 0/);
  });
});
