import { expect } from 'chai';
import {
  isResolved,
  resolveConfig,
  type ConfigProblems,
  type ResolvedConfig,
} from '../../src/config/resolve.ts';
import { fileSource } from '../../src/config/file-source.ts';
import { apiSource, envSource, flagSource } from '../../src/config/sources.ts';

function resolved(result: ResolvedConfig | ConfigProblems): ResolvedConfig {
  if (!isResolved(result)) throw new Error(`unexpected problems: ${result.problems.join('; ')}`);
  return result;
}

function problems(result: ResolvedConfig | ConfigProblems): string[] {
  if (isResolved(result)) throw new Error('expected problems, got a valid configuration');
  return result.problems;
}

describe('config/resolve', () => {
  it('J2 gives the seed 001 §9.1 and seed 003 §12.1 defaults with source "default"', () => {
    const { config, origins } = resolved(resolveConfig([]));

    expect(config.planning.enabled).to.equal(true);
    expect(config.planning.strategy).to.equal('chain_of_thought');
    expect(config.planning.max_subtasks).to.equal(100);
    expect(config.planning.reflection.trigger_interval).to.equal(3);
    expect(config.planning.revision.max_revisions).to.equal(3);
    expect(config.planning.replanning.llm_decision.min_confidence_threshold).to.equal(0.5);
    expect(config.planning.replanning.goal_understanding.auto_assume_timeout_minutes).to.equal(30);
    expect(config.planning.replanning.global.max_total_replans).to.equal(10);
    expect(config.planning.replanning.global.same_trigger_max_count).to.equal(2);
    expect(config.llm.timeout_sec).to.equal(60);
    expect(origins['planning.strategy']).to.deep.equal({ kind: 'default', location: 'default' });
  });

  it('J1 reports a wrong type in .mr-agent.yml with file, key path and expectation', () => {
    const file = fileSource(
      'planning:\n  reflection:\n    trigger_interval: three\n',
      '.mr-agent.yml',
    );

    expect(problems(resolveConfig([file]))).to.deep.equal([
      '.mr-agent.yml: planning.reflection.trigger_interval: expected a whole number >= 0, got "three"',
    ]);
  });

  it('J1 collects every problem of every source instead of stopping at the first', () => {
    const file = fileSource(
      'planning:\n  strategy: fastest\n  max_subtasks: 0\nunknown_key: 1\n',
      '.mr-agent.yml',
    );
    const env = envSource({ REFLECTION_ENABLED: 'maybe' });

    const found = problems(resolveConfig([file, env]));

    expect(found).to.have.length(4);
    expect(found).to.include(
      '.mr-agent.yml: planning.strategy: expected one of chain_of_thought, hierarchical, simple, got "fastest"',
    );
    expect(found).to.include(
      '.mr-agent.yml: planning.max_subtasks: expected a whole number >= 1, got 0',
    );
    expect(found).to.include('.mr-agent.yml: unknown_key: unknown option');
    expect(found).to.include(
      'env: REFLECTION_ENABLED (planning.reflection.enabled): expected true or false, got "maybe"',
    );
  });

  it('J1 takes REFLECTION_INTERVAL=5 from the environment with source "env"', () => {
    const { config, origins } = resolved(resolveConfig([envSource({ REFLECTION_INTERVAL: '5' })]));

    expect(config.planning.reflection.trigger_interval).to.equal(5);
    expect(origins['planning.reflection.trigger_interval']?.kind).to.equal('env');
  });

  it('J1 orders sources defaults < file < api < env < flag whatever order they are given in', () => {
    const file = fileSource(
      'planning:\n  reflection:\n    trigger_interval: 1\n  max_subtasks: 7\n',
      '.mr-agent.yml',
    );
    const api = apiSource(
      {
        status: 'success',
        data: { planning: { max_subtasks: 9, reflection: { trigger_interval: 2 } } },
      },
      'api',
    );
    const env = envSource({ REFLECTION_INTERVAL: '5' });
    const flag = flagSource(['planning.reflection.trigger_interval=8']);

    const { config, origins } = resolved(resolveConfig([flag, env, api, file]));

    expect(config.planning.reflection.trigger_interval).to.equal(8);
    expect(origins['planning.reflection.trigger_interval']?.kind).to.equal('flag');
    expect(config.planning.max_subtasks).to.equal(9);
    expect(origins['planning.max_subtasks']?.kind).to.equal('api');
  });

  it('J1 refuses secrets written in a file and hides their value', () => {
    const file = fileSource('gitlab:\n  token: glpat-abcdefghijkl\n', '.mr-agent.yml');

    const [problem] = problems(resolveConfig([file]));

    expect(problem).to.contain('gitlab.token: is a secret');
    expect(problem).not.to.contain('glpat-abcdefghijkl');
  });

  it('J1 refuses a secret on the command line (--set gitlab.token=…): argv is visible to every process', () => {
    const flags = flagSource([
      'gitlab.token=glpat-abcdefghijkl',
      'serve.webhook_secret=s3cr3t-value',
    ]);

    const found = problems(resolveConfig([flags]));

    expect(found).to.have.length(2);
    expect(found[0]).to.contain('gitlab.token: is a secret');
    expect(found[0]).to.contain('MR_AGENT_GITLAB_TOKEN');
    expect(found.join('\n')).not.to.contain('glpat-abcdefghijkl');
    expect(found.join('\n')).not.to.contain('s3cr3t-value');
  });

  it('J1 reports invalid YAML with its line', () => {
    const file = fileSource('planning:\n  enabled: [unclosed\n', '.mr-agent.yml');

    const [problem] = problems(resolveConfig([file]));

    expect(problem).to.match(/^\.mr-agent\.yml:\d+:\d+: invalid YAML/);
  });

  it('J1 reports a YAML alias bomb as a problem of the file, not a crash', () => {
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]',
      'planning: {strategy: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b]}',
    ].join('\n');

    const [problem] = problems(resolveConfig([fileSource(bomb, '.mr-agent.yml')]));

    expect(problem).to.match(/^\.mr-agent\.yml: YAML aliases expand too far/);
  });

  it('J1 checks the user-config API reply shape of seed 001 §9.3', () => {
    expect(
      problems(resolveConfig([apiSource({ status: 'error' }, 'USER_CONFIG_API_URL')]))[0],
    ).to.contain('expected {"status": "success"');
  });

  it('parses lists and JSON options from the environment', () => {
    const env = envSource({
      MR_AGENT_SECRET_VARIABLES: 'DB_PASS, OTHER',
      MR_AGENT_LLM_PROFILES: '[{"model":"small","base_url":"http://127.0.0.1:1/v1"}]',
    });

    const { config } = resolved(resolveConfig([env]));

    expect(config.secrets.variables).to.deep.equal(['DB_PASS', 'OTHER']);
    expect(config.llm.profiles).to.deep.equal([
      { model: 'small', base_url: 'http://127.0.0.1:1/v1' },
    ]);
  });
});
