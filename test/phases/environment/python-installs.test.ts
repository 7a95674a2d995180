import { existsSync } from 'node:fs';
import { expect } from 'chai';
import { execa } from 'execa';
import { detectEnvironment } from '../../../src/phases/environment/detect-environment.ts';
import { pythonInstalledChecks } from '../../../src/phases/environment/kinds/python/analyze.ts';
import type { EnvironmentDetection } from '../../../src/core/environment.ts';
import { tempRepo } from './support.ts';

/** Issue #20: installs a maintainer would run (SPEC O12). */

let repo: ReturnType<typeof tempRepo> | undefined;
afterEach(() => repo?.cleanup());

async function detect(files: Record<string, string>): Promise<EnvironmentDetection> {
  repo = tempRepo(files);
  return detectEnvironment(repo.dir);
}

const UV_PROJECT = [
  '[project]',
  'name = "svc"',
  'dependencies = ["httpx"]',
  '[project.optional-dependencies]',
  'all = ["orjson"]',
  'test = ["pytest"]',
  '[dependency-groups]',
  'tests = ["pytest-cov"]',
  '[build-system]',
  'requires = ["hatchling"]',
  'build-backend = "hatchling.build"',
].join('\n');

describe('issue #20 uv installs with the extras and groups CI uses', () => {
  it('O12 `uv sync --group tests --extra all` from CI, with --locked kept for uv.lock', async () => {
    const d = await detect({
      'pyproject.toml': UV_PROJECT,
      'uv.lock': 'version = 1\n',
      '.github/workflows/test.yml':
        'jobs:\n  test:\n    steps:\n      - uses: astral-sh/setup-uv@v6\n      - run: uv sync --group tests --extra all\n      - run: uv run pytest\n',
    });
    expect(d.setup_commands).to.deep.equal([
      'python3 -m pip install uv',
      'uv sync --locked --group tests --extra all',
    ]);
    const install = d.decisions.find((x) => x.topic === 'install')!;
    expect(install.evidence).to.deep.equal([
      { file: '.github/workflows/test.yml', line: 5, text: 'uv sync --group tests --extra all' },
    ]);
    expect(d.test_command).to.deep.equal({
      command: 'uv run pytest',
      evidence: [{ file: '.github/workflows/test.yml', line: 6, text: 'uv run pytest' }],
    });
  });

  it('O12 without CI, uv installs the test group and the test extra that exist', async () => {
    const d = await detect({ 'pyproject.toml': UV_PROJECT, 'uv.lock': 'version = 1\n' });
    expect(d.setup_commands[1]).to.equal('uv sync --locked --group tests --extra test');
  });

  it('O12 pip gets the extras CI (or tox) installs', async () => {
    const d = await detect({
      'pyproject.toml': UV_PROJECT,
      'tox.ini': '[testenv]\nextras = test,all\ncommands = pytest\n',
    });
    expect(d.setup_commands).to.deep.equal(["python3 -m pip install -e '.[test,all]'"]);
  });
});

describe('issue #20 Poetry, Pipenv and PDM installs', () => {
  it('O12 Poetry is not installed into the project interpreter; the optional test group is added', async () => {
    const d = await detect({
      'pyproject.toml':
        '[tool.poetry]\nname = "app"\n[tool.poetry.dependencies]\npython = "^3.10"\n[tool.poetry.group.test]\noptional = true\n[tool.poetry.group.test.dependencies]\npytest = "^8"\n',
      'poetry.lock': '',
    });
    expect(d.setup_commands.join('\n')).to.not.match(/(?:^|&& )python3 -m pip install .*poetry/);
    expect(d.setup_commands).to.deep.equal([
      'python3 -m venv "$HOME/.mr-agent/tools/poetry" && "$HOME/.mr-agent/tools/poetry/bin/python" -m pip install --quiet poetry',
      '"$HOME/.mr-agent/tools/poetry/bin/poetry" install --no-interaction --with test',
    ]);
    expect(d.verification[0]!.command).to.match(
      /^"\$HOME\/\.mr-agent\/tools\/poetry\/bin\/poetry" run python -c/,
    );
  });

  it("O12 Poetry takes CI's --with and --extras", async () => {
    const d = await detect({
      'pyproject.toml': '[tool.poetry]\nname = "app"\n',
      'poetry.lock': '',
      '.gitlab-ci.yml': 'test:\n  script:\n    - poetry install --with docs,test -E yaml\n',
    });
    expect(d.setup_commands[1]).to.match(
      /install --no-interaction --with docs --with test --extras yaml$/,
    );
  });

  it('O12 Pipfile.lock: pipenv sync --dev', async () => {
    const d = await detect({ Pipfile: '[packages]\nflask = "*"\n', 'Pipfile.lock': '{}' });
    expect(d.setup_commands).to.deep.equal([
      'python3 -m pip install pipenv',
      'python3 -m pipenv sync --dev',
    ]);
  });
});

describe('issue #20 conda with requirements.txt', () => {
  const ENV =
    'name: lab\ndependencies:\n  - python=3.7\n  - numpy\n  - pandas\n  - pip:\n    - rich\n';

  it('O12 requirements.txt beside environment.yml is not pip-installed over conda (it is the alternative)', async () => {
    const d = await detect({
      'environment.yml': ENV,
      'requirements.txt': 'numpy==1.26.4\npandas==2.2.0\ntensorflow==2.16.1\n',
    });
    expect(d.environment_type).to.equal('miniforge');
    expect(d.setup_commands).to.deep.equal(['conda env create --name lab --file environment.yml']);
  });

  it('O12 … but it is when the docs install it into the conda environment', async () => {
    const d = await detect({
      'environment.yml': ENV,
      'requirements.txt': 'extra-tool\n',
      'README.md':
        '## Installation\n\n```bash\nconda env create -f environment.yml\npip install -r requirements.txt\n```\n',
    });
    expect(d.setup_commands).to.deep.equal([
      'conda env create --name lab --file environment.yml',
      'conda run --no-capture-output -n lab python -m pip install -r requirements.txt',
    ]);
  });

  it('O12 … and not when the README offers pip as the alternative, in a block of its own', async () => {
    const d = await detect({
      'environment.yml': ENV,
      'requirements.txt': 'numpy==1.26.4\n',
      'README.md':
        '## Installation\n\n```bash\nconda env create -f environment.yml\n```\n\nOr with pip:\n\n```bash\npip install -r requirements.txt\n```\n',
    });
    expect(d.setup_commands).to.deep.equal(['conda env create --name lab --file environment.yml']);
  });

  it('O12 an environment file under binder/ is found and belongs to the root', async () => {
    const d = await detect({
      'binder/environment.yml': ENV,
      'requirements.txt': 'numpy\n',
      'notebooks/README.md': '# notebooks\n',
    });
    expect(d.environment_type).to.equal('miniforge');
    expect(d.setup_commands).to.deep.equal([
      'conda env create --name lab --file binder/environment.yml',
    ]);
    expect(d.project_dirs).to.deep.equal(['.']);
  });
});

describe('issue #20 the installed-package check works on every supported Python', () => {
  const interpreters = ['3.6.15', '3.7.16', '3.8.18']
    .map((v) => `/root/.pyenv/versions/${v}/bin/python`)
    .concat(['python3']);
  for (const python of interpreters) {
    it(`O12 ${python} runs the check (importlib.metadata from 3.8, pkg_resources before)`, async function () {
      if (python.startsWith('/') && !existsSync(python)) this.skip();
      const [check] = pythonInstalledChecks(python, ['pip']);
      const ok = await execa('sh', ['-c', check!.command], { reject: false });
      expect([ok.exitCode, ok.stdout]).to.deep.equal([0, 'OK']);
      const [missing] = pythonInstalledChecks(python, ['pip', 'surely-not-installed-mr-agent']);
      const failed = await execa('sh', ['-c', missing!.command], { reject: false });
      expect(failed.exitCode).to.not.equal(0);
    });
  }
});

describe('issue #20 PDM', () => {
  it('O12 pdm.lock: PDM in its own virtualenv, with the groups CI installs', async () => {
    const d = await detect({
      'pyproject.toml': '[project]\nname = "p"\n[tool.pdm]\ndistribution = true\n',
      'pdm.lock': '',
      'noxfile.py': 'def tests(session):\n    session.run("pdm", "install", "-G", "test")\n',
    });
    expect(d.package_manager).to.equal('pdm');
    expect(d.setup_commands[1]).to.equal(
      '"$HOME/.mr-agent/tools/pdm/bin/pdm" install -G test --frozen-lockfile',
    );
    expect(d.decisions.find((x) => x.topic === 'install')!.evidence[0]).to.include({
      file: 'noxfile.py',
      line: 2,
    });
  });
});
