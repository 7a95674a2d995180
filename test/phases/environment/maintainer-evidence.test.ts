import { expect } from 'chai';
import { detectEnvironment } from '../../../src/phases/environment/detect-environment.ts';
import type { EnvironmentDetection } from '../../../src/core/environment.ts';
import { tempRepo } from './support.ts';

/**
 * Issue #20: environment decisions a maintainer would sign (SPEC O12). Each
 * failure class seen on real repositories is reproduced by a layout written
 * here by hand.
 */

let repo: ReturnType<typeof tempRepo> | undefined;
afterEach(() => repo?.cleanup());

async function detect(files: Record<string, string>): Promise<EnvironmentDetection> {
  repo = tempRepo(files);
  return detectEnvironment(repo.dir);
}

const decision = (d: EnvironmentDetection, topic: string) =>
  d.decisions.find((x) => x.topic === topic);

/** 17 workspace packages with many dependencies: more than the Python package declares. */
function yarnWorkspace(): Record<string, string> {
  const files: Record<string, string> = {
    'package.json': JSON.stringify({ private: true, workspaces: ['packages/*'] }),
    'yarn.lock': '# yarn lockfile v1\n',
  };
  for (let i = 0; i < 17; i += 1) {
    const deps = Object.fromEntries(
      Array.from({ length: 4 }, (_, j) => [`dep-${i}-${j}`, '^1.0.0']),
    );
    files[`packages/widget-${i}/package.json`] = JSON.stringify({
      name: `@lab/widget-${i}`,
      dependencies: deps,
    });
  }
  return files;
}

const PUBLISHED_PYPROJECT = [
  '[build-system]',
  'requires = ["hatchling", "hatch-jupyter-builder"]',
  'build-backend = "hatchling.build"',
  '',
  '[project]',
  'name = "labwidgets"',
  'dependencies = ["traitlets>=5"]',
  '',
  '[tool.hatch.build.hooks.jupyter-builder]',
  'build-function = "hatch_jupyter_builder.npm_builder"',
  '',
].join('\n');

describe('issue #20 polyglot roots: the primary project wins, not the largest', () => {
  it('O12 a root pyproject with a build backend beats a larger yarn workspace', async () => {
    const d = await detect({ 'pyproject.toml': PUBLISHED_PYPROJECT, ...yarnWorkspace() });
    expect(d.candidates.find((c) => c.environment === 'node')!.dependency_count).to.be.greaterThan(
      d.candidates.find((c) => c.environment === 'python')!.dependency_count,
    );
    expect(d.environment_type).to.equal('python');
    const env = decision(d, 'environment')!;
    expect(env.rule).to.include('it is the published package at the root');
    expect(env.evidence).to.deep.equal([
      {
        file: 'pyproject.toml',
        line: 3,
        text: 'build-backend = "hatchling.build" (labwidgets)',
      },
    ]);
  });

  it('O12 what CI sets up decides when only one environment runs there', async () => {
    const d = await detect({
      'package.json': JSON.stringify({ name: 'tooling', devDependencies: { husky: '9', a: '1' } }),
      'backend/requirements.txt': 'django\n',
      '.gitlab-ci.yml':
        'test:\n  image: python:3.12\n  script:\n    - cd backend && pip install -r requirements.txt\n    - pytest\n',
    });
    expect(d.environment_type).to.equal('python');
    expect(decision(d, 'environment')!.evidence[0]).to.deep.include({
      file: '.gitlab-ci.yml',
      line: 2,
    });
    expect(d.reasons.join('\n')).to.include("the project's CI sets it up and runs it");
  });

  it('O12 sub-projects for docs lose even when CI builds the docs', async () => {
    const d = await detect({
      'go.mod': 'module example.com/tool\n\ngo 1.22\n',
      'docs/requirements.txt': 'mkdocs\nmkdocs-material\nmkdocstrings\n',
      '.github/workflows/docs.yml':
        'jobs:\n  docs:\n    steps:\n      - uses: actions/setup-python@v5\n      - run: pip install -r docs/requirements.txt\n',
    });
    expect(d.environment_type).to.equal('go');
  });
});

describe('issue #20 members are what the build says', () => {
  it('O12 a pom.xml that settings.gradle.kts does not include is not a member of the Gradle build', async () => {
    const d = await detect({
      'settings.gradle.kts': 'rootProject.name = "lib"\ninclude(":core")\n',
      'build.gradle.kts': 'plugins { java }\n',
      gradlew: '#!/bin/sh\n',
      'core/build.gradle.kts': 'dependencies { implementation("a:b:1") }\n',
      'maven-tests/pom.xml':
        '<project><dependencies><dependency><groupId>x</groupId><artifactId>y</artifactId></dependency></dependencies></project>',
    });
    expect(d.reasons).to.include('workspace members counted: core/');
    expect(d.reasons.join('\n')).to.include(
      'nested projects not set up (not members of the build): maven-tests/',
    );
    expect(d.dependencies).to.deep.equal(['a:b:1']);
  });

  it('O12 Maven <modules> (also in profiles) are the members, other POMs below are not', async () => {
    const d = await detect({
      'pom.xml':
        '<project><modules><module>api</module></modules><profiles><profile><modules><module>it/pom-it.xml</module></modules></profile></profiles></project>',
      'api/pom.xml': '<project/>',
      'it/pom-it.xml': '<project/>',
      'it/pom.xml': '<project/>',
      'samples/pom.xml': '<project/>',
    });
    expect(d.reasons).to.include('workspace members counted: api/, it/');
    expect(d.reasons.join('\n')).to.include('not members of the build): samples/');
  });

  it('O12 workspace globs decide: packages/*/examples/demo is not a member of packages/*', async () => {
    const d = await detect({
      'package.json': JSON.stringify({ private: true, workspaces: ['packages/*'] }),
      'packages/a/package.json': '{"name":"a"}',
      'packages/a/examples/demo/package.json': '{"name":"demo","dependencies":{"x":"1"}}',
    });
    expect(d.reasons).to.include('workspace members counted: packages/a/');
    expect(d.dependencies).to.not.include('x@1');
  });

  it('O12 pnpm-workspace.yaml with `packages: []` is no workspace; negated globs exclude', async () => {
    const empty = await detect({
      'package.json': '{"name":"root"}',
      'pnpm-workspace.yaml': 'packages: []\n',
      'tools/gen/package.json': '{"name":"gen"}',
    });
    expect(empty.reasons.join('\n')).to.not.include('workspace members');
    repo?.cleanup();
    const negated = await detect({
      'package.json': '{"name":"root"}',
      'pnpm-workspace.yaml': "packages:\n  - 'packages/**'\n  - '!**/test/**'\n",
      'packages/a/package.json': '{"name":"a"}',
      'packages/a/test/fixture/package.json': '{"name":"fixture"}',
    });
    expect(negated.reasons).to.include('workspace members counted: packages/a/');
  });

  it('O12 hidden and CI folders are not projects: .github/workflows/*-requirements.txt', async () => {
    const d = await detect({
      'go.mod': 'module example.com/x\n\ngo 1.22\n',
      '.github/workflows/ci-requirements.txt': 'pyyaml\n',
      '.devcontainer/requirements.txt': 'black\n',
      'ci/requirements.txt': 'tox\n',
    });
    expect(d.candidates.map((c) => c.environment)).to.deep.equal(['go']);
  });

  it('O12 go.work `use` lines are the members; go build compiles each of them', async () => {
    const d = await detect({
      'go.work': 'go 1.23.0\n\ntoolchain go1.23.4\n\nuse (\n\t./api\n\t./worker\n)\n',
      'api/go.mod': 'module example.com/api\n\ngo 1.22\n',
      'worker/go.mod': 'module example.com/worker\n\ngo 1.22\n',
      'hack/tools/go.mod': 'module example.com/tools\n\ngo 1.21\n',
    });
    expect(d.reasons).to.include('workspace members counted: api/, worker/');
    expect(d.setup_commands).to.deep.equal([
      'go list -deps -test ./api/... ./worker/... > /dev/null',
    ]);
    expect(d.verification.map((v) => v.command)).to.include(
      'go build ./api/... ./worker/... && echo OK',
    );
    expect(d.versions[0]).to.deep.include({ spec: 'go1.23.4', source: 'go.work toolchain' });
  });
});

describe('issue #20 Maven and Gradle both present', () => {
  const both = {
    'pom.xml': '<project/>',
    'build.gradle': "apply plugin: 'java'\n",
    mvnw: '#!/bin/sh\n',
    gradlew: '#!/bin/sh\n',
  };

  it("O12 the README's build command decides (Maven with mvnw), not Gradle by default", async () => {
    const d = await detect({
      ...both,
      'README.md': '# lib\n\n## Building\n\n```bash\n./mvnw -B verify\n```\n',
    });
    expect(d.package_manager).to.equal('maven');
    expect(d.setup_commands).to.deep.equal(['sh ./mvnw -B -DskipTests install']);
    expect(decision(d, 'build_tool')!.evidence).to.deep.equal([
      { file: 'README.md', line: 6, text: './mvnw -B verify' },
    ]);
  });

  it('O12 CI outranks the README', async () => {
    const d = await detect({
      ...both,
      'README.md': '## Build\n```\n./mvnw verify\n```\n',
      '.github/workflows/ci.yml': 'jobs:\n  build:\n    steps:\n      - run: ./gradlew check\n',
    });
    expect(d.package_manager).to.equal('gradle');
    expect(decision(d, 'build_tool')!.evidence[0]).to.deep.include({
      file: '.github/workflows/ci.yml',
      line: 4,
    });
  });

  it('O12 with no evidence, the only wrapper present decides', async () => {
    const d = await detect({ 'pom.xml': '<project/>', 'build.gradle': '', mvnw: '#!/bin/sh\n' });
    expect(d.package_manager).to.equal('maven');
  });
});

describe('issue #20 the Node package manager CI uses', () => {
  it('O12 without packageManager or a lockfile, CI’s `pnpm install` decides', async () => {
    const d = await detect({
      'package.json': '{"name":"x","devDependencies":{"vitest":"^2"}}',
      '.github/workflows/ci.yml':
        'jobs:\n  test:\n    steps:\n      - uses: pnpm/action-setup@v4\n      - run: pnpm install\n      - run: pnpm test\n',
    });
    expect(d.package_manager).to.equal('pnpm');
    expect(d.decisions.find((x) => x.topic === 'package_manager')!.evidence).to.deep.equal([
      { file: '.github/workflows/ci.yml', line: 5, text: 'pnpm install' },
    ]);
    expect(d.test_command?.command).to.equal('pnpm test');
  });
});
