import { expect } from 'chai';
import { parseCondaFile } from '../../../src/phases/environment/kinds/miniforge/analyze.ts';
import { DETECTION_KINDS } from '../../../src/phases/environment/registry.ts';
import { parseGoMod } from '../../../src/phases/environment/kinds/go/analyze.ts';
import { parseGradle, parsePom } from '../../../src/phases/environment/kinds/java/analyze.ts';
import {
  parsePipfile,
  parsePyproject,
  parseRequirements,
  parseSetupCfg,
  parseSetupPy,
} from '../../../src/phases/environment/kinds/python/parse.ts';
import {
  minimumVersion,
  parseToolVersions,
} from '../../../src/phases/environment/detect/versions.ts';

const { isWantedFile, ownerOf } = DETECTION_KINDS.files;
/** `.tool-versions` names of every registered environment. */
const TOOL_NAMES = Object.fromEntries(
  Object.entries(DETECTION_KINDS.vocabulary.mise).map(([name, [language]]) => [name, language]),
);

describe('version pins (research §2.10)', () => {
  const table: [string, 'python' | 'node' | 'java' | 'go', string | undefined][] = [
    ['>=3.10', 'python', '3.10'],
    ['^3.10', 'python', '3.10'],
    ['~=3.9', 'python', '3.9'],
    ['>=3.8,<4', 'python', '3.8'],
    ['>= 3.9, != 3.9.1', 'python', '3.9'],
    ['3.11.4', 'python', '3.11'],
    ['python-3.12.1', 'python', '3.12'],
    ['pypy3.10', 'python', '3.10'],
    ['<3.12', 'python', undefined],
    ['system', 'python', undefined],
    ['>=18', 'node', '18'],
    ['^20 || ^22', 'node', '20'],
    ['>=18 <21', 'node', '18'],
    ['v20.11.0', 'node', '20'],
    ['18.x', 'node', '18'],
    ['lts/*', 'node', undefined],
    ['lts/iron', 'node', undefined],
    ['17', 'java', '17'],
    ['1.8', 'java', '8'],
    ['temurin-17.0.2+8', 'java', '17'],
    ['21.0.2-tem', 'java', '21'],
    ['1.22', 'go', '1.22'],
    ['go1.22.5', 'go', '1.22'],
  ];
  for (const [spec, language, expected] of table) {
    it(`C2 ${language} "${spec}" → ${String(expected)}`, () => {
      expect(minimumVersion(spec, language)).to.equal(expected);
    });
  }

  // Ranges the token reader got wrong: an excluded series, an empty range,
  // an exclusive bound on a major, a hyphen range, Poetry's tilde.
  const readByLibraries: [string, 'python' | 'node', string | undefined][] = [
    ['>=3.6, !=3.6.*', 'python', '3.7'],
    ['>=3.7,!=3.7.*,!=3.8.*', 'python', '3.9'],
    ['>=3.10,<3.10', 'python', undefined],
    ['!=3.0.*,<4', 'python', undefined],
    ['>17', 'node', '18'],
    ['18 - 20', 'node', '18'],
    ['<=20 || <22', 'node', undefined],
    ['^18.17.0 || >=20.5.0', 'node', '18'],
  ];
  for (const [spec, language, expected] of readByLibraries) {
    it(`C2 ${language} range "${spec}" → ${String(expected)} (semver / PEP 440)`, () => {
      expect(minimumVersion(spec, language)).to.equal(expected);
    });
  }

  it('C2 .tool-versions maps asdf tool names', () => {
    const pins = parseToolVersions(
      'nodejs 20.11.0\npython 3.11.4 3.10.2\ngolang 1.22.1\njava temurin-17.0.2+8\nruby 3.3.0\n',
      '.tool-versions',
      TOOL_NAMES,
    );
    expect(pins.map((p) => [p.language, p.minimum])).to.deep.equal([
      ['node', '20'],
      ['python', '3.11'],
      ['go', '1.22'],
      ['java', '17'],
    ]);
  });
});

describe('manifest parsers', () => {
  it('requirements: comments, continuations, includes, options, editable project, markers, URLs', () => {
    const parsed = parseRequirements(
      [
        '# comment',
        '-r base.txt',
        '--index-url https://example.com/simple',
        'flask>=3.0  # web',
        'requests[socks] \\',
        '    ==2.32.3',
        'importlib-metadata; python_version < "3.10"',
        '-e .',
        'git+https://github.com/org/tool.git#egg=tool',
        'https://example.com/pkg.whl',
      ].join('\n'),
    );
    expect(parsed.includes).to.deep.equal(['base.txt']);
    expect(parsed.installsProject).to.equal(true);
    expect(parsed.dependencies.map((d) => [d.name, d.conditional])).to.deep.equal([
      ['flask', false],
      ['requests', false],
      ['importlib-metadata', true],
      ['tool', false],
      [undefined, false],
    ]);
  });

  it('pyproject: PEP 621, optional groups, PEP 735 groups, Poetry groups', () => {
    const py = parsePyproject(`
[project]
name = "svc"
requires-python = ">=3.11"
dependencies = ["httpx>=0.27"]
[project.optional-dependencies]
test = ["pytest"]
[dependency-groups]
lint = ["ruff"]
[tool.poetry.group.docs.dependencies]
mkdocs = "^1.6"
[build-system]
requires = ["hatchling"]
`);
    expect(py).to.include({
      name: 'svc',
      requiresPython: '>=3.11',
      installable: true,
      isProject: true,
      poetry: true,
    });
    expect(py.extras).to.deep.equal(['test']);
    expect(py.dependencies.map((d) => d.name)).to.deep.equal(['httpx', 'pytest', 'ruff', 'mkdocs']);
  });

  it('pyproject with only tool settings is not a project', () => {
    expect(parsePyproject('[tool.black]\nline-length = 88\n').isProject).to.equal(false);
  });

  it('Pipfile, setup.py and setup.cfg are read without running anything', () => {
    const pipfile = parsePipfile(
      '[packages]\nflask = "*"\n[dev-packages]\npytest = ">=8"\n[requires]\npython_version = "3.11"\n',
    );
    expect(pipfile.python).to.equal('3.11');
    expect(pipfile.dependencies.map((d) => d.text)).to.deep.equal(['flask', 'pytest (>=8)']);
    const setupPy = parseSetupPy(
      'setup(name="x", install_requires=["click>=8", \'rich\'], python_requires=">=3.9")',
    );
    expect(setupPy).to.deep.include({ python: '>=3.9' });
    expect(setupPy.dependencies.map((d) => d.name)).to.deep.equal(['click', 'rich']);
    const cfg = parseSetupCfg(
      '[metadata]\nname = x\n\n[options]\npython_requires = >=3.8\ninstall_requires =\n    attrs>=23\n    tomli; python_version<"3.11"\n\n[options.extras_require]\ndev = pytest\n',
    );
    expect(cfg.python).to.equal('>=3.8');
    expect(cfg.dependencies.map((d) => [d.name, d.conditional])).to.deep.equal([
      ['attrs', false],
      ['tomli', true],
    ]);
  });

  it('go.mod: module, go, toolchain, direct requirements only', () => {
    const mod = parseGoMod(
      'module example.com/x\n\ngo 1.22\ntoolchain go1.22.5\n\nrequire github.com/a/b v1.0.0\nrequire (\n\tgithub.com/c/d v1.2.3\n\tgithub.com/e/f v0.1.0 // indirect\n)\n',
    );
    expect(mod).to.deep.equal({
      module: 'example.com/x',
      go: '1.22',
      toolchain: 'go1.22.5',
      requires: ['github.com/a/b v1.0.0', 'github.com/c/d v1.2.3'],
    });
  });

  it('pom.xml: dependencies with property versions, modules, release before source', () => {
    const pom =
      parsePom(`<project><properties><maven.compiler.source>11</maven.compiler.source><maven.compiler.release>21</maven.compiler.release><v>1.2</v></properties>
<modules><module>core</module></modules>
<dependencies><dependency><groupId>g</groupId><artifactId>a</artifactId><version>\${v}</version></dependency></dependencies></project>`);
    expect(pom.dependencies).to.deep.equal(['g:a:1.2']);
    expect(pom.multiModule).to.equal(true);
    expect(pom.pins[0]).to.include({
      spec: '21',
      minimum: '21',
      source: 'pom.xml maven.compiler.release',
    });
    expect(parsePom('<project><groupId>x</group>').notes).to.deep.equal([
      'pom.xml is not well-formed XML',
    ]);
  });

  it('Gradle (Groovy and Kotlin): dependency notations, catalog references, Java version', () => {
    const groovy = parseGradle(
      "dependencies {\n  implementation 'com.google.guava:guava:33.0.0-jre'\n  testImplementation libs.junit\n}\njava { sourceCompatibility = JavaVersion.VERSION_1_8 }\n",
      'build.gradle',
    );
    expect(groovy.dependencies).to.deep.equal(['com.google.guava:guava:33.0.0-jre', 'libs.junit']);
    expect(groovy.pins[0]).to.include({ minimum: '8' });
    const kts = parseGradle(
      'dependencies { implementation(platform("org.springframework.boot:spring-boot-dependencies:3.3.0")) }\njava { toolchain { languageVersion = JavaLanguageVersion.of(21) } }',
      'build.gradle.kts',
    );
    expect(kts.dependencies).to.deep.equal([
      'org.springframework.boot:spring-boot-dependencies:3.3.0',
    ]);
    expect(kts.pins[0]).to.include({ minimum: '21' });
  });

  it('conda environment files: conda and pip dependencies; other YAML is not one', () => {
    expect(
      parseCondaFile('name: x\ndependencies:\n  - python=3.11\n  - pip:\n    - rich\n'),
    ).to.deep.equal({
      name: 'x',
      conda: ['python=3.11'],
      pip: ['rich'],
    });
    expect(parseCondaFile('apiVersion: v1\nkind: ConfigMap\n')).to.equal(undefined);
    expect(parseCondaFile('dependencies: [unclosed')).to.equal(undefined);
  });

  it('file names: requirements variants, requirements/ folders, Gradle wrapper properties', () => {
    expect(isWantedFile('requirements-dev.txt', '')).to.equal(true);
    expect(isWantedFile('test_requirements.txt', 'api')).to.equal(true);
    expect(isWantedFile('dev.txt', 'requirements')).to.equal(true);
    expect(isWantedFile('notes.txt', 'docs')).to.equal(false);
    expect(isWantedFile('gradle-wrapper.properties', 'gradle/wrapper')).to.equal(true);
    expect(isWantedFile('index.ts', 'src')).to.equal(false);
    expect(ownerOf('api/requirements/dev.txt')).to.deep.equal({
      dir: 'api',
      key: 'requirements/dev.txt',
    });
    expect(ownerOf('gradle/wrapper/gradle-wrapper.properties')).to.deep.equal({
      dir: '.',
      key: 'gradle/wrapper/gradle-wrapper.properties',
    });
    expect(ownerOf('package.json')).to.deep.equal({ dir: '.', key: 'package.json' });
  });
});
