import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { detectEnvironment } from '../../../src/phases/environment/detect-environment.ts';
import type { EnvironmentDetection } from '../../../src/core/environment.ts';
import { SelectedEnvironment } from '../../../src/core/environment.ts';
import { selectEnvironment } from '../../../src/phases/environment/select.ts';

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/repos');

describe('environment selection (SPEC D2, seed 000 §4.2, §4.4.2)', () => {
  let polyglot: EnvironmentDetection;
  let empty: EnvironmentDetection;
  before(async () => {
    polyglot = await detectEnvironment(path.join(fixtures, 'polyglot-python-node'));
    empty = {
      ...polyglot,
      environment_type: 'python',
      proposals: {},
      reasons: [],
      detected_files: {},
    };
  });

  it('D2 the planner’s complete choice is kept as given', () => {
    const planned = {
      name: 'node',
      reason: 'the task changes the Tailwind build',
      detected_files: ['package.json'],
      setup_commands: ['npm install'],
      verification: [
        { command: 'npx tailwindcss --help > /dev/null && echo OK', expected_output: 'OK' },
      ],
    };
    const s = selectEnvironment({ planned, detection: polyglot });
    expect(s).to.deep.equal({ ...planned, defaulted: [], warnings: [] });
  });

  it('§4.4.2 missing setup commands and verification come from detection for the chosen environment', () => {
    const s = selectEnvironment({
      planned: { name: 'node', reason: 'frontend task' },
      detection: polyglot,
    });
    expect(s.name).to.equal('node');
    expect(s.setup_commands).to.deep.equal(['npm install --no-audit --no-fund --no-package-lock']);
    expect(s.verification.map((v) => v.expected_output)).to.deep.equal(['OK', 'true']);
    expect(s.defaulted).to.deep.equal(['detected_files', 'setup_commands', 'verification']);
  });

  it('§4.4.2 empty lists count as missing', () => {
    const s = selectEnvironment({
      planned: { name: 'python', setup_commands: [], verification: [] },
      detection: polyglot,
    });
    expect(s.setup_commands).to.deep.equal(['python3 -m pip install -r requirements.txt']);
    expect(s.defaulted).to.include('setup_commands').and.include('verification');
  });

  it('D2 no selected_environment at all: the detected environment, with its reason', () => {
    const s = selectEnvironment({ detection: polyglot });
    expect(s.name).to.equal('python');
    expect(s.reason).to.include('chose python over node');
    expect(s.defaulted).to.include('name');
  });

  it('D2 an unavailable environment falls back to detection, and the planner’s commands for it are dropped', () => {
    const s = selectEnvironment({
      planned: {
        name: 'rust',
        setup_commands: ['cargo fetch'],
        verification: [{ command: 'cargo -V', expected_output: 'cargo' }],
      },
      detection: polyglot,
    });
    expect(s.name).to.equal('python');
    expect(s.setup_commands).to.deep.equal(['python3 -m pip install -r requirements.txt']);
    expect(s.warnings[0]).to.include('"rust" is not an available environment');
  });

  it('D2 names are normalised: "Node.js" → node, "conda" → miniforge, "golang" → go', () => {
    expect(selectEnvironment({ planned: { name: 'Node.js' }, detection: polyglot }).name).to.equal(
      'node',
    );
    expect(selectEnvironment({ planned: { name: 'conda' }, detection: polyglot }).name).to.equal(
      'miniforge',
    );
    expect(selectEnvironment({ planned: { name: ' golang ' }, detection: polyglot }).name).to.equal(
      'go',
    );
  });

  it('D2 a planner choice outside the offered environments is not used; python is the last resort', () => {
    const s = selectEnvironment({
      planned: { name: 'go' },
      detection: empty,
      available: ['python', 'node'],
    });
    expect(s.name).to.equal('python');
    const onlyNode = selectEnvironment({
      detection: { ...empty, environment_type: 'java' },
      available: ['node'],
    });
    expect(onlyNode.name).to.equal('node');
  });

  it('D2 environment.name in the configuration overrides the planner, with a warning', () => {
    const s = selectEnvironment({
      planned: { name: 'node' },
      detection: polyglot,
      configured: 'java',
    });
    expect(s.name).to.equal('java');
    expect(s.reason).to.equal('environment.name is set to java');
    expect(s.verification).to.deep.equal([
      { command: 'java -version > /dev/null 2>&1 && echo OK', expected_output: 'OK' },
    ]);
    expect(s.warnings[0]).to.include('environment.name is set to java');
  });

  it('D2 an invalid selected_environment is reported with the zod message and ignored', () => {
    const s = selectEnvironment({
      planned: { name: 'node', verification: [{ command: 'node -v' }], extra: true },
      detection: polyglot,
    });
    expect(s.name).to.equal('python');
    expect(s.warnings[0])
      .to.include('verification.0.expected_output')
      .and.include('selected_environment is not usable');
  });

  it('the SelectedEnvironment schema is strict for model output', () => {
    expect(SelectedEnvironment.safeParse({ name: 'python', colour: 'blue' }).success).to.equal(
      false,
    );
    expect(SelectedEnvironment.safeParse({ setup_commands: [''] }).success).to.equal(false);
    expect(SelectedEnvironment.safeParse({}).success).to.equal(true);
  });
});

describe('setup settings from the configuration', () => {
  it('E2 environment.max_regenerations, setup_timeout_sec, setup_enabled and prompts.directory are read', async () => {
    const { loadConfig } = await import('../../../src/config/load.ts');
    const { setupSettings } = await import('../../../src/phases/environment/setup.ts');
    const resolved = await loadConfig({
      env: {},
      sets: ['environment.max_regenerations=1', 'environment.setup_timeout_sec=30'],
    });
    expect(setupSettings(resolved.config)).to.deep.equal({
      maxRegenerations: 1,
      timeoutMs: 30_000,
      enabled: true,
    });
  });
});
