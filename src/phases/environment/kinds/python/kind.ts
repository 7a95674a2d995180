import path from 'node:path';
import { tagVersion } from '../../detect/ci-config.ts';
import { lastSegment } from '../../detect/files.ts';
import { exists, readText } from '../build-files.ts';
import type { EnvironmentKind, TestDetector } from '../kind.ts';
import { sig } from '../signature.ts';
import { analyzePython, TOOL_NAMES } from './analyze.ts';
import { PYTHON_COMMANDS } from './commands.ts';
import { venvRunner } from './runner.ts';

/** `requirements-dev.txt`, `test_requirements.txt`, `requirements.in` … (Renovate's pattern, widened). */
const REQUIREMENTS_FILE = /^(?:[\w-]+[-_.])?requirements(?:[-_.][\w-]+)?\.(?:txt|in)$/i;

/** pytest's configuration, or a pyproject next to a `tests/` folder. */
export const pythonTest: TestDetector = async (dir) => {
  for (const file of ['pytest.ini', 'conftest.py', 'tox.ini']) {
    if (await exists(path.join(dir, file))) return 'python -m pytest';
  }
  const pyproject = await readText(path.join(dir, 'pyproject.toml'));
  if (pyproject?.includes('[tool.pytest')) return 'python -m pytest';
  const setupCfg = await readText(path.join(dir, 'setup.cfg'));
  if (setupCfg?.includes('[tool:pytest]')) return 'python -m pytest';
  if (pyproject !== undefined && (await exists(path.join(dir, 'tests')))) return 'python -m pytest';
  return undefined;
};

/** pip, uv, poetry, pdm and pipenv projects; the default environment. */
export const python: EnvironmentKind<'python'> = {
  name: 'python',
  language: 'python',
  tieBreak: 0,
  files: {
    roles: {
      'requirements.txt': 'manifest',
      'pyproject.toml': 'manifest',
      'setup.py': 'manifest',
      'setup.cfg': 'support',
      Pipfile: 'manifest',
      'Pipfile.lock': 'lockfile',
      'poetry.lock': 'lockfile',
      'uv.lock': 'lockfile',
      'pdm.lock': 'lockfile',
      '.python-version': 'version',
      'runtime.txt': 'version',
    },
    wanted: (name, dir) =>
      (name.includes('equirement') && REQUIREMENTS_FILE.test(name)) ||
      ((name.endsWith('.txt') || name.endsWith('.in')) && lastSegment(dir) === 'requirements'),
    describe: (key) =>
      REQUIREMENTS_FILE.test(lastSegment(key)) || key.startsWith('requirements/')
        ? 'manifest'
        : undefined,
    // `api/requirements/dev.txt` describes `api`
    keyLength: (parts) =>
      parts[parts.length - 2] === 'requirements' && /\.(?:txt|in)$/.test(parts[parts.length - 1]!)
        ? 2
        : undefined,
  },
  analyze: analyzePython,
  commands: PYTHON_COMMANDS,
  toolWords: [
    'pip[\\d.]*',
    'uv',
    'poetry',
    'pdm',
    'pipenv',
    'pytest',
    'py\\.test',
    'tox',
    'nox',
    'hatch',
  ],
  toolNames: Object.keys(TOOL_NAMES),
  ci: {
    setupActions: [
      { uses: /^actions\/setup-python@/, language: 'python', versionKeys: ['python-version'] },
      { uses: /^astral-sh\/setup-uv@/, language: 'python', versionKeys: ['python-version'] },
    ],
    image: (repo, tag) => {
      if (!/^(?:python|pypy)\d?$/.test(repo)) return undefined;
      const version = tagVersion(tag);
      return version ? { language: 'python', version } : { language: 'python' };
    },
    travisKey: 'python',
  },
  defaultCheck: { command: `python3 -c "print('OK')"`, expected_output: 'OK' },
  planner: {
    description: 'Python 3.11 with pip',
    selectedBy: '`requirements.txt` (no conda)',
  },
  aliases: ['python3', 'py', 'pip', 'poetry'],
  testDetectors: () => [pythonTest],
  testGuessRank: 1,
  runner: venvRunner,
  signatures: {
    fatal: [sig('out-of-memory', 'python', /^MemoryError\b/m)],
    retryable: [
      sig(
        'lock',
        'pip',
        /another instance of pip is running|\[Errno 11\] Resource temporarily unavailable/,
      ),
      sig(
        'network',
        'pip',
        /NewConnectionError|ReadTimeoutError|ConnectTimeoutError|ProtocolError|Connection broken|IncompleteRead/,
      ),
    ],
    fixable: [
      sig(
        'lockfile-mismatch',
        'poetry',
        /pyproject\.toml changed significantly since poetry\.lock was last generated|poetry\.lock is not consistent with pyproject\.toml/,
      ),
      sig('lockfile-mismatch', 'pipenv', /Pipfile\.lock \([0-9a-f]+\) out of date/),
      sig('lockfile-mismatch', 'uv', /The lockfile at `uv\.lock` needs to be updated/),
      sig(
        'version-conflict',
        'pip',
        /ResolutionImpossible|conflicting dependencies|Cannot install [^\n]* because these package versions have conflicting/,
      ),
      sig('version-conflict', 'poetry', /SolverProblemError|version solving failed/),
      sig(
        'unknown-package',
        'pip',
        /No matching distribution found for|Could not find a version that satisfies the requirement/,
        'envHint.pythonPackage',
      ),
      sig(
        'unknown-package',
        'python',
        /ModuleNotFoundError: No module named|ImportError: No module named/,
      ),
      sig(
        'toolchain',
        'pip',
        /requires a different Python|Requires-Python|externally-managed-environment|Package '[^']+' requires a different Python/,
      ),
      sig(
        'config-syntax',
        'pip',
        /Invalid requirement:|TOMLDecodeError|Invalid TOML|InvalidRequirement|error in [\w.-]+ setup command/,
      ),
      sig(
        'missing-file',
        'pip',
        /Could not open requirements file|does not appear to be a Python project|neither 'setup\.py' nor 'pyproject\.toml' found/,
      ),
    ],
  },
  job: {
    imageDescription: 'Image for the `python` environment (needs Node 24 and `mr-agent` on PATH).',
    cacheDirs: ['pip', 'uv', 'poetry'],
    variables: (dir) => ({
      PIP_CACHE_DIR: dir('pip'),
      UV_CACHE_DIR: dir('uv'),
      POETRY_CACHE_DIR: dir('poetry'),
    }),
  },
};
