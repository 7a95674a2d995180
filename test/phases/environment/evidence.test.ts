import { expect } from 'chai';
import { recognize, splitCommands } from '../../../src/phases/environment/detect/commands.ts';
import {
  findCommands,
  gatherEvidence,
  MAX_EVIDENCE,
  MAX_FILE_CHARS,
  MAX_LINE_CHARS,
} from '../../../src/phases/environment/detect/evidence.ts';
import { imageRuntime as imageRuntimeOf } from '../../../src/phases/environment/detect/ci-config.ts';
import { DETECTION_KINDS } from '../../../src/phases/environment/registry.ts';

const { vocabulary } = DETECTION_KINDS;
const evidenceOf = (files: Record<string, string>) =>
  gatherEvidence(Object.keys(files), (rel) => Promise.resolve(files[rel]), vocabulary);
const imageRuntime = (image: string) => imageRuntimeOf(image, vocabulary.ci.images);

describe('evidence from what maintainers wrote (issue #20, SPEC O12)', () => {
  it('O12 commands are recognised by tool and kind; tool installs are not project installs', () => {
    const table: [string, string, string][] = [
      ['python3 -m pip install -e ".[test,all]"', 'pip', 'install'],
      ['pip install --upgrade pip tox', 'pip', 'tool'],
      ['uv sync --group tests --extra all', 'uv', 'install'],
      ['uv run pytest -x', 'pytest', 'test'],
      ['poetry install --with test', 'poetry', 'install'],
      ['pipenv install requests', 'pipenv', 'tool'],
      ['conda env create -f binder/environment.yml', 'conda', 'install'],
      ['npm ci', 'npm', 'install'],
      ['npm install -g markdownlint-cli', 'npm', 'tool'],
      ['yarn', 'yarn', 'install'],
      ['pnpm run test:unit', 'pnpm', 'test'],
      ['./mvnw -B verify', 'maven', 'test'],
      ['mvn -B -DskipTests install', 'maven', 'build'],
      ['sh ./gradlew check', 'gradle', 'test'],
      ['go test ./...', 'go', 'test'],
      ['$(PYTHON) -m pip install -r requirements/test.txt', 'pip', 'install'],
    ];
    for (const [line, tool, kind] of table) {
      const [words] = splitCommands(line);
      const found = recognize(words!, vocabulary.rules);
      expect([line, found?.tool, found?.kind]).to.deep.equal([line, tool, kind]);
    }
  });

  it('O12 a GitHub workflow gives setup-* versions (matrix expanded) and run lines with file:line', async () => {
    const workflow = [
      'name: CI', // 1
      'on: [push]', // 2
      'jobs:', // 3
      '  test:', // 4
      '    runs-on: ubuntu-latest', // 5
      '    strategy:', // 6
      '      matrix:', // 7
      '        python-version: ["3.9", "3.10", "3.13"]', // 8
      '    steps:', // 9
      '      - uses: actions/checkout@v4', // 10
      '      - uses: actions/setup-python@v5', // 11
      '        with:', // 12
      '          python-version: ${{ matrix.python-version }}', // 13
      '      - run: |', // 14
      '          python -m pip install --upgrade pip', // 15
      '          uv sync --group tests --extra all', // 16
      '      - run: uv run pytest', // 17
      '  docs:', // 18
      '    runs-on: ubuntu-latest', // 19
      '    steps:', // 20
      '      - run: pip install -r docs/requirements.txt', // 21
    ].join('\n');
    const evidence = await evidenceOf({ '.github/workflows/ci.yml': workflow });
    expect(evidence.runtimes).to.have.length(1);
    expect(evidence.runtimes[0]).to.include({ file: '.github/workflows/ci.yml', line: 13 });
    expect(evidence.runtimes[0]!.versions).to.deep.equal(['3.9', '3.10', '3.13']);
    const installs = findCommands(evidence, { environment: 'python', kind: 'install' });
    expect(installs.map((c) => [c.line, c.text])).to.deep.equal([
      [16, 'uv sync --group tests --extra all'],
    ]);
    const docs = findCommands(evidence, { kind: 'install', secondary: true });
    expect(docs.map((c) => [c.line, c.secondary])).to.deep.equal([
      [16, false],
      [21, true],
    ]);
    expect(findCommands(evidence, { kind: 'test' })[0]).to.include({ line: 17 });
  });

  it('O12 GitLab CI images and scripts, the README install section and tox extras are evidence', async () => {
    const evidence = await evidenceOf({
      '.gitlab-ci.yml': [
        'image: maven:3.9-eclipse-temurin-21',
        'test:',
        '  script:',
        '    - ./mvnw -B verify',
      ].join('\n'),
      'README.md': [
        '# lib',
        '## Usage',
        '```python',
        'import lib',
        '```',
        '## Development',
        '```console',
        '$ pip install -e .[dev]',
        '```',
      ].join('\n'),
      'tox.ini': '[testenv]\nextras =\n    test\n    yaml\ncommands = pytest {posargs}\n',
    });
    expect(evidence.runtimes.map((r) => [r.file, r.line, r.language, r.versions])).to.deep.equal([
      ['.gitlab-ci.yml', 1, 'java', ['21']],
    ]);
    const commands = evidence.commands.map((c) => [c.file, c.line, c.command.line, c.source]);
    expect(commands).to.deep.equal([
      ['.gitlab-ci.yml', 4, './mvnw -B verify', 'ci'],
      ['tox.ini', 3, 'pip install -e .[test]', 'tool'],
      ['tox.ini', 4, 'pip install -e .[yaml]', 'tool'],
      ['tox.ini', 5, 'pytest', 'tool'],
      ['README.md', 8, 'pip install -e .[dev]', 'docs'],
    ]);
  });

  it('O12 a broken CI file is a problem noted, not a crash', async () => {
    const evidence = await evidenceOf({ '.gitlab-ci.yml': 'test: [\n' });
    expect(evidence.problems[0]).to.match(/^\.gitlab-ci\.yml is not valid YAML/);
  });

  it('O12 job images name the runtime and version', () => {
    expect(imageRuntime('python:3.11-slim')).to.deep.equal({
      language: 'python',
      environment: 'python',
      version: '3.11',
    });
    expect(imageRuntime('registry.example.com/library/golang:1.22-alpine')?.version).to.equal(
      '1.22',
    );
    expect(imageRuntime('gradle:8.5-jdk17')?.version).to.equal('17');
    expect(imageRuntime('eclipse-temurin:21-jdk')?.version).to.equal('21');
    expect(imageRuntime('condaforge/miniforge3:latest')?.environment).to.equal('miniforge');
    expect(imageRuntime('alpine:3.20')).to.equal(undefined);
  });

  it('O12 hostile evidence is bounded: huge files, endless commands and over-long lines are noted or skipped', async () => {
    const huge = await evidenceOf({
      '.gitlab-ci.yml': `a: [${'x,'.repeat(MAX_FILE_CHARS)}]\n`,
      'README.md': '## Install\n```\npip install -e .\n```\n',
    });
    expect(huge.problems).to.deep.equal([
      `.gitlab-ci.yml is too large to read as evidence (over ${MAX_FILE_CHARS} characters)`,
    ]);
    expect(huge.commands).to.have.length(1);
    const endless = await evidenceOf({
      'README.md': `## Install\n\`\`\`\n${'npm ci\n'.repeat(MAX_EVIDENCE + 10)}\`\`\`\n`,
    });
    expect(endless.commands).to.have.length(MAX_EVIDENCE);
    expect(endless.problems).to.deep.equal([
      `evidence stopped after ${MAX_EVIDENCE} commands and set-up steps`,
    ]);
    const long = await evidenceOf({
      Makefile: `test:\n\tpytest ${'-k x '.repeat(MAX_LINE_CHARS)}\n\tgo test ./...\n`,
    });
    expect(long.commands.map((c) => c.command.tool)).to.deep.equal(['go']);
  });
});
