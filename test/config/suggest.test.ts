import { expect } from 'chai';
import { isResolved, resolveConfig } from '../../src/config/resolve.ts';
import { fileSource } from '../../src/config/file-source.ts';
import { envSource, flagSource } from '../../src/config/sources.ts';
import { closestKey, editDistance } from '../../src/config/suggest.ts';

function problemsOf(...sources: Parameters<typeof resolveConfig>[0]): string[] {
  const result = resolveConfig(sources);
  if (isResolved(result)) throw new Error('expected problems, got a valid configuration');
  return result.problems;
}

describe('config/suggest: unknown options name the option meant (J1)', () => {
  it('J1 a typo in .mr-agent.yml says "did you mean planning.strategy?"', () => {
    const file = fileSource('planning:\n  stratgy: hierarchical\n', '.mr-agent.yml');

    expect(problemsOf(file)).to.deep.equal([
      '.mr-agent.yml: planning.stratgy: unknown option (did you mean planning.strategy?)',
    ]);
  });

  it('J1 --set with a name cut short or without its section gets the full key', () => {
    const flags = flagSource([
      'execution.command_timeout=30',
      'trigger_interval=2',
      'log.levl=debug',
    ]);

    expect(problemsOf(flags)).to.deep.equal([
      '--set: execution.command_timeout: unknown option (did you mean execution.command_timeout_sec?)',
      '--set: trigger_interval: unknown option (did you mean planning.reflection.trigger_interval?)',
      '--set: log.levl: unknown option (did you mean log.level?)',
    ]);
  });

  it('J1 an unknown option far from every key gets no guess', () => {
    const file = fileSource('foo: 1\n', '.mr-agent.yml');

    expect(problemsOf(file)).to.deep.equal(['.mr-agent.yml: foo: unknown option']);
    expect(closestKey('zzz', ['log.level'])).to.equal(undefined);
  });

  it('counts a transposition as one edit', () => {
    expect(editDistance('strategy', 'stratgey')).to.equal(1);
    expect(editDistance('level', 'levl')).to.equal(1);
    expect(editDistance('', 'abc')).to.equal(3);
  });

  it('J1 invalid YAML gives the position once, without a dangling colon', () => {
    const file = fileSource('planning:\n  strategy: hierarchical\n   bad: [\n', '.mr-agent.yml');

    const found = problemsOf(file);

    expect(found[0]).to.match(/^\.mr-agent\.yml:2:\d+: invalid YAML: \S/);
    for (const problem of found) {
      expect(problem).not.to.match(/at line \d+, column \d+/);
      expect(problem).not.to.match(/:$/);
    }
  });

  it('J1 a URL option without http(s):// is refused where it was set (gitlab.url, llm.base_url)', () => {
    const env = envSource({
      MR_AGENT_GITLAB_URL: 'gitlab.example.com',
      MR_AGENT_LLM_BASE_URL: 'localhost:8000/v1',
    });

    expect(problemsOf(env)).to.deep.equal([
      'env: MR_AGENT_LLM_BASE_URL (llm.base_url): expected an http(s) URL (or empty), got "localhost:8000/v1"',
      'env: MR_AGENT_GITLAB_URL (gitlab.url): expected an http(s) URL (or empty), got "gitlab.example.com"',
    ]);
    const ok = resolveConfig([envSource({ MR_AGENT_LLM_BASE_URL: 'http://127.0.0.1:8000/v1' })]);
    expect(isResolved(ok)).to.equal(true);
  });
});
