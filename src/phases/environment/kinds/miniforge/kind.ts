import type { EnvironmentKind } from '../kind.ts';
import { pythonTest } from '../python/kind.ts';
import { sig } from '../signature.ts';
import { analyzeConda } from './analyze.ts';
import { condaEnvironmentRunner } from './runner.ts';

/** repo2docker's convention: `binder/environment.yml` describes the repository root. */
const CONDA_ALTERNATIVE = /^\.?binder\/(?:environment|condaenv)\.ya?ml$/;

/** A conda environment file (`environment.yml`), set up with Miniforge's conda. */
export const miniforge: EnvironmentKind<'miniforge'> = {
  name: 'miniforge',
  language: 'python',
  tieBreak: 4,
  files: {
    roles: {
      'environment.yml': 'manifest',
      'environment.yaml': 'manifest',
      'condaenv.yaml': 'manifest',
      'condaenv.yml': 'manifest',
    },
    describe: (key) => (CONDA_ALTERNATIVE.test(key) ? 'manifest' : undefined),
    keyLength: (parts) =>
      CONDA_ALTERNATIVE.test(`${parts[parts.length - 2]}/${parts[parts.length - 1]}`)
        ? 2
        : undefined,
  },
  analyze: analyzeConda,
  commands: [
    (tool, args) => {
      if (!['conda', 'mamba', 'micromamba'].includes(tool)) return undefined;
      const file = args.some((a) => /^(?:-f|--file)(?:=|$)/.test(a));
      const envFile = args[0] === 'env' && ['create', 'update'].includes(args[1] ?? '');
      if (envFile || (['create', 'update', 'install'].includes(args[0] ?? '') && file))
        return { environment: 'miniforge', tool: 'conda', kind: 'install' };
      return { environment: 'miniforge', tool: 'conda', kind: 'tool' };
    },
  ],
  toolWords: ['conda', 'mamba', 'micromamba'],
  ci: {
    setupActions: [
      {
        uses: /^(?:conda-incubator\/setup-miniconda|mamba-org\/setup-micromamba)@/,
        language: 'python',
        versionKeys: ['python-version'],
        fileKeys: ['environment-file'],
      },
    ],
    image: (repo) => (/conda|mamba|miniforge/.test(repo) ? { language: 'python' } : undefined),
  },
  supersedes: {
    environment: 'python',
    reason: 'a conda environment file is present: conda is needed, so miniforge rather than python',
  },
  testEvidence: 'python',
  defaultCheck: { command: 'conda --version > /dev/null && echo OK', expected_output: 'OK' },
  planner: {
    description: 'Miniforge with conda, suited to scientific computing and data science projects',
    selectedBy: '`condaenv.yaml` or `environment.yml`',
  },
  aliases: ['conda', 'anaconda', 'miniconda', 'mamba'],
  testDetectors: () => [pythonTest],
  testGuessRank: 1,
  runner: condaEnvironmentRunner,
  signatures: {
    retryable: [
      sig(
        'lock',
        'conda',
        /CondaLockError|LOCKERROR|It looks like a conda process is already running/,
      ),
      sig('server-error', 'conda', /CondaHTTPError: HTTP 5\d\d/),
      sig(
        'network',
        'conda',
        /CondaHTTPError: HTTP 000 CONNECTION FAILED|CondaSSLError|CondaConnectionError/,
      ),
    ],
    fixable: [
      sig(
        'version-conflict',
        'conda',
        /UnsatisfiableError|LibMambaUnsatisfiableError|Solving environment: failed|Could not solve for environment specs/,
      ),
      sig(
        'unknown-package',
        'conda',
        /PackagesNotFoundError|ResolvePackageNotFound|The following packages are not available from current channels/,
      ),
      sig('missing-file', 'conda', /EnvironmentFileNotFound|file not found/),
    ],
  },
  job: {
    imageDescription: 'Image for the `miniforge` (conda) environment.',
    cacheDirs: ['conda/pkgs', 'pip'],
    variables: (dir) => ({ CONDA_PKGS_DIRS: dir('conda/pkgs'), PIP_CACHE_DIR: dir('pip') }),
  },
};
