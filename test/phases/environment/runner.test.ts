import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { environmentRunner, type RunnerInput } from '../../../src/phases/environment/runner.ts';
import { tempRepo, writeFiles } from './support.ts';

describe('phases/environment/runner: how later commands run inside the environment (issue 17 item 4)', () => {
  let repo: ReturnType<typeof tempRepo>;
  afterEach(() => repo?.cleanup());

  const input = (over: Partial<RunnerInput>): RunnerInput => ({
    name: 'miniforge',
    setupStatus: 'success',
    setupCommands: [],
    checkCommands: [],
    repoDir: repo.dir,
    projectDirs: ['.'],
    ...over,
  });

  const condaCases: Array<[string, string[], string[], Record<string, string>]> = [
    ['--name', ['conda env create --name demo --file environment.yml'], ['-n', 'demo'], {}],
    ['-n, mamba', ['mamba create -y -n demo python=3.11'], ['-n', 'demo'], {}],
    [
      'the name in the file, in a sub-folder',
      ['cd ml && conda env create -f env.yaml'],
      ['-n', 'from-file'],
      { 'ml/env.yaml': 'name: from-file\ndependencies: [python]\n' },
    ],
    [
      'environment.yml when no file is named',
      ['conda env create'],
      ['-n', 'default-file'],
      { 'environment.yml': 'name: default-file\ndependencies: [python]\n' },
    ],
    [
      'a conda run of a setup command when the create is not recognised',
      ['micromamba install -y pytest', 'conda run -n other python -m pip install -e .'],
      ['-n', 'other'],
      {},
    ],
  ];
  for (const [label, setupCommands, target, files] of condaCases) {
    it(`miniforge: conda run in the created environment (${label})`, async () => {
      repo = tempRepo(files);
      const runner = await environmentRunner(input({ setupCommands }));
      expect(runner?.wrap).to.deep.equal(['conda', 'run', ...target, '--no-capture-output']);
      expect(runner?.description).to.contain(`conda run ${target.join(' ')} --no-capture-output`);
    });
  }

  it('miniforge: a prefix environment runs with -p and its absolute path', async () => {
    repo = tempRepo();
    const runner = await environmentRunner(
      input({ setupCommands: ['conda env create -p ./envs/app -f environment.yml'] }),
    );
    expect(runner?.wrap).to.deep.equal([
      'conda',
      'run',
      '-p',
      path.join(repo.dir, 'envs/app'),
      '--no-capture-output',
    ]);
  });

  it('miniforge: no wrapper after a failed or skipped setup (a missing environment would fail every command), nor without a name', async () => {
    repo = tempRepo();
    const create = ['conda env create --name demo --file environment.yml'];
    expect(
      await environmentRunner(input({ setupCommands: create, setupStatus: 'failed' })),
    ).to.equal(undefined);
    expect(
      await environmentRunner(input({ setupCommands: create, setupStatus: 'skipped' })),
    ).to.equal(undefined);
    expect(
      await environmentRunner(input({ setupCommands: ['conda env create -n "$(id)"'] })),
    ).to.equal(undefined);
  });

  it('python: the virtualenv the setup created goes first on PATH, with VIRTUAL_ENV', async () => {
    repo = tempRepo({ 'build/env/bin/python': '', '.venv/bin/python': '' });
    const named = await environmentRunner(
      input({ name: 'python', setupCommands: ['python3 -m venv build/env'] }),
    );
    expect(named).to.deep.include({
      wrap: [],
      path: [path.join(repo.dir, 'build/env/bin')],
      env: { VIRTUAL_ENV: path.join(repo.dir, 'build/env') },
    });
    const usual = await environmentRunner(input({ name: 'python', setupCommands: ['uv sync'] }));
    expect(usual?.path).to.deep.equal([path.join(repo.dir, '.venv/bin')]);
    expect(usual?.description).to.contain('`.venv`');
  });

  it('python: a project folder’s venv is found; no venv, or one that leaves the checkout, means no runner', async () => {
    repo = tempRepo({ 'api/venv/bin/python': '' });
    const inProject = await environmentRunner(input({ name: 'python', projectDirs: ['api'] }));
    expect(inProject?.path).to.deep.equal([path.join(repo.dir, 'api/venv/bin')]);

    const outside = mkdtempSync(path.join(tmpdir(), 'mr-agent-outside-'));
    try {
      writeFiles(outside, { 'bin/python': '' });
      const other = tempRepo();
      try {
        symlinkSync(outside, path.join(other.dir, '.venv'));
        mkdirSync(path.join(other.dir, 'src'));
        expect(
          await environmentRunner({ ...input({ name: 'python' }), repoDir: other.dir }),
        ).to.equal(undefined);
      } finally {
        other.cleanup();
      }
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('node, java and go need no wrapper (their package manager and test command are in the hand-off)', async () => {
    repo = tempRepo({ '.venv/bin/python': '' });
    for (const name of ['node', 'java', 'go'] as const)
      expect(await environmentRunner(input({ name }))).to.equal(undefined);
  });
});
