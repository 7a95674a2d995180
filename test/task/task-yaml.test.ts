import { expect } from 'chai';
import { ConfigError } from '../../src/errors/errors.ts';
import { parseTaskYaml, taskFromText } from '../../src/task/task-yaml.ts';

const MINIMAL = 'version: 1\ntask:\n  prd:\n    text: Add a retry to the HTTP client\n';

function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return [...(error as ConfigError).problems];
  }
  throw new Error('expected a ConfigError');
}

describe('task/task-yaml', () => {
  it('A5 applies the seed 002 §2.3 defaults', () => {
    const task = parseTaskYaml(MINIMAL, 'task.yaml', {});

    expect(task.id).to.match(/^[0-9a-f-]{36}$/);
    expect(task.title).to.equal('');
    expect(task.repo).to.equal('.');
    expect(task.test).to.equal(undefined);
    expect(task.maxLoops).to.equal(10);
    expect(task.meta.kind).to.equal('openai-chat');
    expect(task.worker).to.deep.equal({ kind: 'builtin', maxRunTimeSec: 1800, env: {} });
  });

  it('A5 reads every field of a full task', () => {
    const text = [
      'version: 1',
      'task:',
      '  id: TASK-123',
      '  title: Retry',
      '  repo: ./svc',
      '  prd: { path: ./docs/TASK-123.md }',
      '  test: { command: npm test }',
      'runner:',
      '  max_loops: 4',
      '  meta: { model: gpt-x }',
      '  worker: { kind: codex-cli, max_run_time_sec: 60, env: { CODEX_API_KEY: "env:MY_KEY", MODE: fast } }',
    ].join('\n');

    const task = parseTaskYaml(text, 'task.yaml', { MY_KEY: 'k-123456' });

    expect(task).to.deep.include({ id: 'TASK-123', title: 'Retry', repo: './svc', maxLoops: 4 });
    expect(task.prd).to.deep.equal({ path: './docs/TASK-123.md' });
    expect(task.test).to.deep.equal({ command: 'npm test', cwd: '.' });
    expect(task.meta.model).to.equal('gpt-x');
    expect(task.worker).to.deep.equal({
      kind: 'codex-cli',
      maxRunTimeSec: 60,
      env: { CODEX_API_KEY: 'k-123456', MODE: 'fast' },
    });
  });

  it('A5 sections whose entries are all commented out count as absent', () => {
    const text = `${MINIMAL}runner:\n  meta:\n    # system_prompt: x\n  worker:\n    env:\n      # A: env:A\n`;

    const task = parseTaskYaml(text, 'task.yaml', {});

    expect(task.meta.kind).to.equal('openai-chat');
    expect(task.worker).to.deep.include({ kind: 'builtin', env: {} });
    expect(parseTaskYaml(`${MINIMAL}runner:\n`, 'task.yaml', {}).maxLoops).to.equal(10);
  });

  it('A5 a missing version is reported with its path', () => {
    expect(
      problemsOf(() => parseTaskYaml('task:\n  prd: { text: x }\n', 'task.yaml', {})),
    ).to.deep.equal(['task.yaml: version: expected version: 1']);
  });

  it('A5 a missing task.prd is reported with its path', () => {
    const problems = problemsOf(() =>
      parseTaskYaml('version: 1\ntask:\n  title: x\n', 'task.yaml', {}),
    );

    expect(problems).to.deep.equal(['task.yaml: task.prd: missing (expected object)']);
  });

  it('A5 Task YAML errors point at the format, not at `mr-agent config check`', () => {
    const hints: (string | undefined)[] = [];
    for (const text of ['version: 1\ntask: [\n', 'task:\n  title: x\n']) {
      try {
        parseTaskYaml(text, 'task.yaml', {});
      } catch (error) {
        hints.push((error as ConfigError).hint);
      }
    }
    const unset = `${MINIMAL}runner:\n  worker:\n    env:\n      TOKEN: "env:NOT_SET_ANYWHERE"\n`;
    try {
      parseTaskYaml(unset, 'task.yaml', {});
    } catch (error) {
      hints.push((error as ConfigError).hint);
    }

    expect(hints).to.have.length(3);
    expect(hints[0]).to.contain('"Task YAML" in README.md');
    expect(hints[1]).to.contain('"Task YAML" in README.md');
    expect(hints[2]).to.contain('remove its entry from runner.worker.env');
  });

  it('A5 a prd with both path and text is refused', () => {
    const problems = problemsOf(() =>
      parseTaskYaml('version: 1\ntask:\n  prd: { text: a, path: b }\n', 't.yaml', {}),
    );

    expect(problems).to.deep.equal([
      't.yaml: task.prd: expected exactly one of prd.path or prd.text',
    ]);
  });

  it('A5 an unset env: variable is named', () => {
    const text = `${MINIMAL}runner:\n  worker:\n    env:\n      TOKEN: "env:NOT_SET_ANYWHERE"\n`;

    expect(problemsOf(() => parseTaskYaml(text, 'task.yaml', {}))).to.deep.equal([
      'task.yaml: runner.worker.env.TOKEN: refers to env:NOT_SET_ANYWHERE, but NOT_SET_ANYWHERE is not set',
    ]);
  });

  it('reports YAML syntax errors with a line', () => {
    expect(problemsOf(() => parseTaskYaml('version: 1\ntask: [\n', 'task.yaml', {}))[0]).to.match(
      /^task\.yaml:\d+:\d+: invalid YAML: /,
    );
  });

  it('A5 refuses a YAML alias bomb with a ConfigError instead of crashing', () => {
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]',
      'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]',
      'version: 1',
      'task: {prd: {text: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]}}',
    ].join('\n');
    expect(problemsOf(() => parseTaskYaml(bomb, 'task.yaml', {}))).to.deep.equal([
      'task.yaml: YAML aliases expand too far (more than 100 references to anchored values); write the values out instead',
    ]);
  });

  it('builds a task from plain text', () => {
    const task = taskFromText('make the importer skip blank rows\nmore detail', { repo: '/tmp/r' });

    expect(task).to.deep.include({ title: 'make the importer skip blank rows', repo: '/tmp/r' });
    expect(task.prd.text).to.contain('more detail');
  });
});
