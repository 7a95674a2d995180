import { symlinkSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { expect } from 'chai';
import { UsageError } from '../../../src/errors/errors.ts';
import { detectEnvironment } from '../../../src/phases/environment/detect-environment.ts';
import { gitTrackedText } from '../../../src/shell/git-tracked.ts';
import type { EnvironmentDetection } from '../../../src/core/environment.ts';
import { rangeOf } from '../../../src/phases/environment/detect/versions.ts';
import { tempRepo, writeFiles } from './support.ts';

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/repos');

interface Expected {
  fixture: string;
  environment: EnvironmentDetection['environment_type'];
  packageManager: string;
  setup: string[];
  /** expected_output of each verification check, in order. */
  outputs: string[];
  reason: string;
  dependency?: string;
  version?: string;
}

const table: Expected[] = [
  {
    fixture: 'python-pip',
    environment: 'python',
    packageManager: 'pip',
    setup: ['python3 -m pip install -r requirements.txt -r requirements-dev.txt'],
    outputs: ['True', 'OK'],
    reason: 'chose python: the only environment with project files',
    dependency: 'flask>=3.0,<4',
    version: '3.11',
  },
  {
    fixture: 'miniforge-conda',
    environment: 'miniforge',
    packageManager: 'conda',
    setup: ['conda env create --name climate-analysis --file environment.yml'],
    outputs: ['True', 'OK'],
    reason: 'chose miniforge',
    dependency: 'numpy>=1.26',
    version: '3.11',
  },
  {
    fixture: 'node-npm',
    environment: 'node',
    packageManager: 'npm',
    setup: ['npm ci --no-audit --no-fund'],
    outputs: ['true', 'true'],
    reason: 'chose node',
    dependency: 'local-greet@file:vendor/local-greet',
    version: '20',
  },
  {
    fixture: 'java-maven',
    environment: 'java',
    packageManager: 'maven',
    setup: ['mvn -B -DskipTests install'],
    outputs: ['true', 'OK'],
    reason: 'chose java',
    dependency: 'org.junit.jupiter:junit-jupiter:5.10.2',
    version: '17',
  },
  {
    fixture: 'go-module',
    environment: 'go',
    packageManager: 'go',
    setup: ['go mod download'],
    // `go build ./...` compiles the module: `go mod verify` compiled nothing (issue #20)
    outputs: ['OK', 'OK', 'example.com/hello'],
    reason: 'chose go',
    dependency: 'github.com/google/uuid v1.6.0',
    version: '1.22',
  },
  {
    fixture: 'python-poetry',
    environment: 'python',
    packageManager: 'poetry',
    // Poetry in a virtualenv of its own, never in the project's interpreter (issue #20)
    setup: [
      'python3 -m venv "$HOME/.mr-agent/tools/poetry" && "$HOME/.mr-agent/tools/poetry/bin/python" -m pip install --quiet poetry',
      '"$HOME/.mr-agent/tools/poetry/bin/poetry" install --no-interaction',
    ],
    outputs: ['True', 'OK'],
    reason: 'package manager poetry (its lockfile poetry.lock)',
    dependency: 'pydantic (^2.7)',
    version: '3.10',
  },
  {
    fixture: 'node-pnpm-workspace',
    environment: 'node',
    packageManager: 'pnpm',
    setup: ['corepack enable pnpm', 'pnpm install --frozen-lockfile'],
    outputs: ['true', 'true'],
    reason: 'workspace members counted: packages/api/, packages/shared/',
    dependency: 'fastify@^5.1.0',
    version: '22',
  },
  {
    fixture: 'java-gradle-kotlin',
    environment: 'java',
    packageManager: 'gradle',
    setup: ['sh ./gradlew --no-daemon assemble'],
    outputs: ['true', 'OK'],
    reason: 'build tool gradle (wrapper)',
    dependency: 'io.ktor:ktor-client-core:3.0.1',
    version: '21',
  },
  {
    fixture: 'polyglot-python-node',
    environment: 'python',
    packageManager: 'pip',
    setup: ['python3 -m pip install -r requirements.txt'],
    outputs: ['3', 'OK'],
    reason: 'chose python over node: it declares the most dependencies',
    dependency: 'django>=5.0,<5.2',
  },
  {
    // issue #20: the published Python package beats a yarn workspace with more dependencies
    fixture: 'polyglot-published',
    environment: 'python',
    packageManager: 'pip',
    setup: [`python3 -m pip install -e '.[test]'`],
    outputs: ['True', 'OK'],
    reason: 'chose python over node: it is the published package at the root',
    dependency: 'ipywidgets>=8.1',
    version: '3.9',
  },
];

describe('detectEnvironment on fixture repositories (SPEC C2, seed 000 §3, §4.2)', () => {
  for (const row of table) {
    it(`C2 ${row.fixture} → ${row.environment} (${row.packageManager})`, async () => {
      const d = await detectEnvironment(path.join(fixtures, row.fixture));
      expect(d.environment_type).to.equal(row.environment);
      expect(d.package_manager).to.equal(row.packageManager);
      expect(d.setup_commands).to.deep.equal(row.setup);
      expect(d.verification.map((v) => v.expected_output)).to.deep.equal(row.outputs);
      expect(d.reasons.join('\n')).to.include(row.reason);
      if (row.dependency) expect(d.dependencies).to.include(row.dependency);
      expect(rangeOf(row.environment === 'java', d.versions).minimum).to.equal(row.version);
      expect(Object.keys(d.detected_files).length).to.be.greaterThan(0);
    });
  }

  it('C2 detected_files holds manifest contents and summarises lockfiles', async () => {
    const d = await detectEnvironment(path.join(fixtures, 'node-npm'));
    expect(d.detected_files['package.json']).to.include('"local-greet"');
    expect(d.detected_files['package-lock.json']).to.match(/^\(lockfile, \d+ bytes; not shown\)$/);
    expect(d.detected_files).to.not.have.property('vendor/local-greet/package.json');
  });

  it('C2 the polyglot repository lists both candidates with their dependency counts', async () => {
    const d = await detectEnvironment(path.join(fixtures, 'polyglot-python-node'));
    expect(d.candidates.map((c) => [c.environment, c.dependency_count])).to.deep.equal([
      ['python', 6],
      ['node', 2],
    ]);
    expect(d.proposals.node?.setup_commands).to.deep.equal([
      'npm install --no-audit --no-fund --no-package-lock',
    ]);
    expect(d.detected_files).to.have.property('Dockerfile');
  });
});

describe('detectEnvironment on generated trees', () => {
  let repo: ReturnType<typeof tempRepo>;
  afterEach(() => repo?.cleanup());

  it('D2/§4.2.3 an empty repository defaults to python', async () => {
    repo = tempRepo({ 'README.md': '# nothing here\n' });
    const d = await detectEnvironment(repo.dir);
    expect(d.environment_type).to.equal('python');
    expect(d.setup_commands).to.deep.equal([]);
    expect(d.verification).to.deep.equal([
      { command: `python3 -c "print('OK')"`, expected_output: 'OK' },
    ]);
    expect(d.reasons[0]).to.include('python, the default');
  });

  it('C2 an .nvmrc outside engines.node is named, read as npm reads ranges (semver intersects)', async () => {
    repo = tempRepo({
      'package.json': JSON.stringify({ name: 'app', engines: { node: '18 - 20' } }),
      '.nvmrc': '16\n',
    });
    const d = await detectEnvironment(repo.dir);
    expect(d.reasons.join('\n')).to.include(
      '.nvmrc asks for node 16, outside engines.node "18 - 20"',
    );
    expect(d.versions[0]).to.include({ spec: '18 - 20', minimum: '18' });
  });

  it('C2 skips node_modules, virtualenvs, vendor, build outputs and .gitignore’d folders', async () => {
    repo = tempRepo({
      'go.mod': 'module example.com/app\n\ngo 1.22\n',
      'node_modules/left-pad/package.json': '{}',
      'env/pyvenv.cfg': 'home = /usr/bin\n',
      'env/lib/python3.11/site-packages/x/requirements.txt': 'x\n',
      'vendor/github.com/a/b/go.mod': 'module github.com/a/b\n',
      'build/package.json': '{}',
      'generated/package.json': '{}',
      'keep/generated/package.json': '{}',
      '.gitignore': 'generated/\n!keep/generated/\n',
    });
    const d = await detectEnvironment(repo.dir);
    expect(d.environment_type).to.equal('go');
    expect(d.candidates.map((c) => c.environment)).to.deep.equal(['node', 'go']);
    expect(d.proposals.node?.project_dirs).to.deep.equal(['keep/generated']);
    expect(Object.keys(d.detected_files)).to.deep.equal(['go.mod', 'keep/generated/package.json']);
  });

  it('C2 a nested .gitignore re-includes what a parent ignores, as in git', async () => {
    repo = tempRepo({
      'package.json': '{"name":"root"}',
      '.gitignore': 'package.json\n!/package.json\n',
      'a/package.json': '{}',
      'b/package.json': '{}',
      'b/.gitignore': '!package.json\n',
    });
    const d = await detectEnvironment(repo.dir);
    expect(Object.keys(d.detected_files).sort()).to.deep.equal(['b/package.json', 'package.json']);
  });

  it('C2 in a git checkout the git index is read; --walk also sees untracked files', async () => {
    repo = tempRepo({ 'requirements.txt': 'flask\n', 'web/package.json': '{}' });
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo.dir, stdio: 'pipe' });
    git('init', '-q');
    git('add', 'requirements.txt');
    const indexed = await detectEnvironment(repo.dir, { tracked: (dir) => gitTrackedText(dir) });
    expect(indexed.stats.source).to.equal('git-index');
    expect(Object.keys(indexed.detected_files)).to.deep.equal(['requirements.txt']);
    const walked = await detectEnvironment(repo.dir, { listing: 'walk' });
    expect(walked.stats.source).to.equal('walk');
    expect(Object.keys(walked.detected_files)).to.deep.equal([
      'requirements.txt',
      'web/package.json',
    ]);
  });

  it('C2 monorepo without root manifests: sub-folder projects compete, each set up in its folder', async () => {
    repo = tempRepo({
      'services/api/go.mod':
        'module example.com/api\n\ngo 1.23\n\nrequire (\n\tgithub.com/a/b v1.0.0\n\tgithub.com/c/d v1.0.0\n\tgithub.com/e/f v1.0.0\n)\n',
      'services/worker/go.mod': 'module example.com/worker\n\ngo 1.23\n',
      'web/package.json': JSON.stringify({ dependencies: { react: '^18.3.1' } }),
      'web/package-lock.json': '{}',
    });
    const d = await detectEnvironment(repo.dir);
    expect(d.environment_type).to.equal('go');
    expect(d.reasons.join('\n')).to.include(
      'chose go over node: it declares the most dependencies',
    );
    expect(d.setup_commands).to.deep.equal([
      'cd services/api && go mod download',
      'cd services/worker && go mod download',
    ]);
    expect(d.verification.map((v) => v.command)).to.include('cd services/worker && go list -m');
    expect(d.proposals.node?.setup_commands).to.deep.equal([
      'cd web && npm ci --no-audit --no-fund',
    ]);
  });

  it('C2 a root project wins over a larger project in a sub-folder', async () => {
    repo = tempRepo({
      'package.json': JSON.stringify({ devDependencies: { prettier: '3' } }),
      'backend/requirements.txt': 'a\nb\nc\nd\n',
    });
    const d = await detectEnvironment(repo.dir);
    expect(d.environment_type).to.equal('node');
    expect(d.reasons.join('\n')).to.include(
      'chose node over python: its project is at the repository root',
    );
  });

  it('seed 000 §4.2.1 a conda file next to requirements.txt means miniforge; pip adds only the project itself (issue #20)', async () => {
    repo = tempRepo({
      'environment.yml': 'name: lab\ndependencies:\n  - python=3.12\n  - numpy\n',
      'requirements.txt': 'rich\n',
      'setup.py': 'from setuptools import setup\nsetup(name="lab", python_requires=">=3.10")\n',
    });
    const d = await detectEnvironment(repo.dir);
    expect(d.environment_type).to.equal('miniforge');
    expect(d.setup_commands).to.deep.equal([
      'conda env create --name lab --file environment.yml',
      // requirements.txt is the pip alternative to environment.yml: not installed over conda's packages
      'conda run --no-capture-output -n lab python -m pip install --no-deps -e .',
    ]);
    expect(d.reasons.join('\n')).to.include('miniforge rather than python');
  });

  it('seed 000 §4.2.1 a conda file in another sub-folder does not swallow a Python project', async () => {
    repo = tempRepo({
      'notebooks/environment.yml': 'dependencies:\n  - numpy\n',
      'api/requirements.txt': 'fastapi\nuvicorn\n',
    });
    const d = await detectEnvironment(repo.dir);
    expect(d.environment_type).to.equal('python');
    expect(d.reasons.join('\n')).to.not.include('miniforge rather than python');
  });

  it('C2 symbolic links and test-data folders are not followed', async () => {
    repo = tempRepo({ 'go.mod': 'module x\n', 'testdata/repo/package.json': '{}' });
    const outside = tempRepo({ 'package.json': '{}' });
    try {
      symlinkSync(outside.dir, path.join(repo.dir, 'linked'));
      const d = await detectEnvironment(repo.dir);
      expect(d.candidates.map((c) => c.environment)).to.deep.equal(['go']);
    } finally {
      outside.cleanup();
    }
  });

  it('C2 a pyproject.toml that only configures tools is not a Python project', async () => {
    repo = tempRepo({
      'pyproject.toml': '[tool.ruff]\nline-length = 100\n',
      'go.mod': 'module x\n\ngo 1.22\n',
    });
    const d = await detectEnvironment(repo.dir);
    expect(d.environment_type).to.equal('go');
    expect(d.candidates.map((c) => c.environment)).to.deep.equal(['go']);
  });

  it('C2 a broken package.json is reported, not fatal', async () => {
    repo = tempRepo({ 'package.json': '{"name": "x",,}' });
    const d = await detectEnvironment(repo.dir);
    expect(d.environment_type).to.equal('node');
    expect(d.reasons.join('\n')).to.include('package.json is not valid JSON');
  });

  it('C2 a broken pnpm-workspace.yaml is reported, not fatal', async () => {
    repo = tempRepo({ 'package.json': '{"name": "x"}', 'pnpm-workspace.yaml': 'packages: [\n' });
    const d = await detectEnvironment(repo.dir);
    expect(d.environment_type).to.equal('node');
    expect(d.reasons.join('\n')).to.include('pnpm-workspace.yaml is not valid YAML');
  });

  it('C2 version pins: .tool-versions at the root applies to a sub-folder project', async () => {
    repo = tempRepo({
      '.tool-versions': 'nodejs 22.11.0\npython 3.12.7\n',
      'app/package.json': '{}',
    });
    const d = await detectEnvironment(repo.dir);
    expect(d.versions).to.deep.equal([
      { language: 'node', spec: '22.11.0', minimum: '22', source: '.tool-versions nodejs' },
    ]);
    expect(d.verification[0]!.command).to.equal(
      `cd app && node -e "process.stdout.write(String(Number(process.versions.node.split('.')[0]) >= 22))"`,
    );
  });

  it('large files are read size-capped and the shown total is bounded', async () => {
    repo = tempRepo({ 'requirements.txt': `${'x'.repeat(100_000)}\nflask\n` });
    const d = await detectEnvironment(repo.dir, { maxReadBytes: 50_000, maxShownBytes: 1000 });
    expect(d.detected_files['requirements.txt']!.length).to.be.lessThan(1100);
    expect(d.detected_files['requirements.txt']).to.include('…(cut at 1000 characters)');
    expect(d.dependencies).to.not.include('flask');
  });

  it('a missing folder is a usage error', async () => {
    let error: unknown;
    await detectEnvironment('/nonexistent/mr-agent').catch((e: unknown) => (error = e));
    expect(error).to.be.instanceOf(UsageError);
  });

  it('depth is bounded: projects below maxDepth are not found', async () => {
    repo = tempRepo({ 'a/b/c/package.json': '{}' });
    writeFiles(repo.dir, { 'a/go.mod': 'module a\n' });
    const shallow = await detectEnvironment(repo.dir, { maxDepth: 2 });
    expect(shallow.candidates.map((c) => c.environment)).to.deep.equal(['go']);
  });
});
