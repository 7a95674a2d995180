import { expect } from 'chai';
import { promptFiles } from '../../../src/llm/prompt-files.ts';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ENVIRONMENT_JOBS } from '../../../src/ci/environments.ts';
import { loadConfig } from '../../../src/config/load.ts';
import { FakeClock } from '../../../src/core/clock.ts';
import type { SelectedEnvironment } from '../../../src/core/environment.ts';
import { createMemoryLogger } from '../../../src/log/logger.ts';
import { Redactor } from '../../../src/log/redact.ts';
import { environmentStep } from '../../../src/phases/environment/step.ts';
import { ExecaShell } from '../../../src/shell/execa-shell.ts';
import { ScriptedJsonLlm } from './fake-llm.ts';
import { tempRepo } from './support.ts';

async function stepFor(repoDir: string, hostEnv: Record<string, string | undefined>) {
  const { config } = await loadConfig({ env: {}, file: null });
  const redactor = new Redactor();
  return environmentStep({
    config,
    llm: new ScriptedJsonLlm(),
    shell: new ExecaShell(),
    clock: new FakeClock(),
    logger: createMemoryLogger({ redactor, level: 'debug' }).logger,
    redactor,
    hostEnv,
    repoDir,
    prompts: promptFiles(),
  });
}

const OK_CHECK = { command: 'echo ok', expected_output: 'ok' };

describe('phases/environment/step: the one hand-off value (issue 17 items 4 and 5)', () => {
  let repo: ReturnType<typeof tempRepo>;
  afterEach(() => repo?.cleanup());

  it('issue 17 item 4: a Python setup that makes a virtualenv hands over the venv, pip and pytest — not npm test — and the prompt says so', async () => {
    repo = tempRepo({
      'requirements.txt': 'pytest\n',
      'pytest.ini': '[pytest]\n',
      'package.json': JSON.stringify({ scripts: { test: 'jest' } }),
    });
    const step = await stepFor(repo.dir, { PATH: process.env.PATH });
    const selected: SelectedEnvironment = {
      name: 'python',
      setup_commands: [
        `mkdir -p .venv/bin && printf '#!/bin/sh\\necho venv\\n' > .venv/bin/python && chmod +x .venv/bin/python`,
      ],
      verification: [{ command: '.venv/bin/python', expected_output: 'venv' }],
    };

    const { handoff } = await step.setup(selected);

    expect(handoff).to.deep.include({
      environment_name: 'python',
      setup_status: 'success',
      package_manager: 'pip',
      test_command: { command: 'python -m pytest', cwd: '.' },
    });
    expect(handoff.runner).to.deep.include({
      wrap: [],
      path: [path.join(repo.dir, '.venv', 'bin')],
      env: { VIRTUAL_ENV: path.join(repo.dir, '.venv') },
    });
    const section = await step.executionSection(handoff);
    expect(section).to.contain('**Running commands**: Python runs from the virtualenv `.venv`');
    expect(section).to.contain('**Package manager**: pip');
    expect(section).to.contain('**Test command**: `python -m pytest`, run inside the environment');
  });

  it('issue 17 item 4: a pnpm project hands over pnpm and `pnpm test`, in its folder, with no wrapper', async () => {
    repo = tempRepo({
      'web/package.json': JSON.stringify({ name: 'web', scripts: { test: 'vitest' } }),
      'web/pnpm-lock.yaml': "lockfileVersion: '9.0'\n",
    });
    const step = await stepFor(repo.dir, { PATH: process.env.PATH });

    const { handoff } = await step.setup({
      name: 'node',
      setup_commands: ['true'],
      verification: [OK_CHECK],
    });

    expect(handoff.runner).to.equal(undefined);
    expect(handoff).to.deep.include({
      package_manager: 'pnpm',
      test_command: { command: 'pnpm test', cwd: 'web' },
    });
    const section = await step.executionSection(handoff);
    expect(section).to.contain('**Package manager**: pnpm');
    expect(section).to.contain('**Test command**: `pnpm test` (in `web/`)');
    expect(section).not.to.contain('**Running commands**');
  });

  const declared = [
    ...new Set([
      ...Object.values(ENVIRONMENT_JOBS).flatMap((job) => Object.keys(job.variables)),
      // the other cache settings of the package managers the environments use
      'NPM_CONFIG_CACHE',
      'NPM_CONFIG_STORE_DIR',
      'UV_CACHE_DIR',
      'POETRY_CACHE_DIR',
      'MAVEN_USER_HOME',
      'GRADLE_USER_HOME',
      'GOPATH',
      'GOMODCACHE',
      'GOCACHE',
    ]),
  ];
  it(`issue 17 item 5: every cache variable reaches the setup commands (${declared.join(', ')}); tokens never do`, async () => {
    repo = tempRepo();
    const caches = Object.fromEntries(declared.map((name) => [name, `/cache/${name}`]));
    const tokens = {
      CI_JOB_TOKEN: 'job-token-value',
      MR_AGENT_GITLAB_TOKEN: 'glpat-secret-value',
      GITLAB_TOKEN: 'glpat-other-value',
      OPENAI_API_KEY: 'sk-secret-value',
      NPM_TOKEN: 'npm-secret-value',
    };
    const step = await stepFor(repo.dir, { PATH: process.env.PATH, ...caches, ...tokens });

    const { handoff } = await step.setup({
      name: 'node',
      setup_commands: ['env > seen-env.txt'],
      verification: [OK_CHECK],
    });

    expect(handoff.setup_status).to.equal('success');
    const seen = await readFile(path.join(repo.dir, 'seen-env.txt'), 'utf8');
    const lines = new Set(seen.split('\n'));
    for (const name of declared)
      expect(lines.has(`${name}=/cache/${name}`), `${name} reached setup`).to.equal(true);
    for (const value of Object.values(tokens)) expect(seen).not.to.contain(value);
  });
});
