import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { renderReadmeSections, replaceSections } from '../../src/config/readme-sections.ts';
import { parseTaskYaml } from '../../src/task/task-yaml.ts';

describe('docs/README', () => {
  it('J1 the configuration table in README.md is generated from the options table (run `npm run docs` when this fails)', () => {
    const readme = readFileSync('README.md', 'utf8');

    expect(readme).to.contain('<!-- generated:options -->');
    expect(replaceSections(readme, renderReadmeSections())).to.equal(readme);
  });

  it('B1 the component inputs table in README.md is generated from templates/*.yml (run `npm run docs` when this fails)', () => {
    const readme = readFileSync('README.md', 'utf8');
    const sections = renderReadmeSections();

    expect(readme).to.contain('<!-- generated:inputs -->');
    expect(sections.inputs).to.contain('| `environment` | string | `auto` |');
    expect(replaceSections(readme, { inputs: sections.inputs! })).to.equal(readme);
  });

  it('the first two commands on a fresh machine are the demo and the tests', () => {
    const readme = readFileSync('README.md', 'utf8');
    const blocks = [...readme.matchAll(/```(?:sh|bash|shell)\n([\s\S]*?)```/g)].map((m) =>
      m[1]!.trim(),
    );

    expect(blocks[0]).to.equal('npm ci && npm run demo');
    expect(blocks[1]).to.equal('npm test');
  });

  it('A5 the Task YAML example in README.md works when copied as it is (no variable needs to be set)', () => {
    const readme = readFileSync('README.md', 'utf8');
    const section = readme.slice(readme.indexOf('### Task YAML'));
    const example = /```yaml\n([\s\S]*?)```/.exec(section)?.[1] ?? '';

    const task = parseTaskYaml(example, 'README.md', {});

    expect(task).to.deep.include({ id: 'TASK-123', title: 'Add retries', repo: '.', maxLoops: 10 });
    expect(task.prd.text).to.contain('retry on 503');
    expect(task.test?.command).to.equal('npm test');
    expect(task.worker.kind).to.equal('builtin');
  });

  it('A5 the Task YAML example in docs/agent-runner.md parses as written (its meta: has only comments)', () => {
    const doc = readFileSync('docs/agent-runner.md', 'utf8');
    const example = /```yaml\n([\s\S]*?)```/.exec(doc)?.[1] ?? '';

    const task = parseTaskYaml(example, 'docs/agent-runner.md', { CODEX_API_KEY: 'sk-codex' });

    expect(task.worker).to.deep.include({ kind: 'codex-cli', maxRunTimeSec: 1800 });
    expect(task.worker.env).to.deep.equal({ CODEX_API_KEY: 'sk-codex' });
    expect(task.meta.kind).to.equal('openai-chat');
    expect(task.maxLoops).to.equal(5);
  });
});
