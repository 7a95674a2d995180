import { expect } from 'chai';
import { promptFiles } from '../../../src/llm/prompt-files.ts';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { loadConfig } from '../../../src/config/load.ts';
import { FakeClock } from '../../../src/core/clock.ts';
import { createMemoryLogger } from '../../../src/log/logger.ts';
import { Redactor } from '../../../src/log/redact.ts';
import { environmentStep } from '../../../src/phases/environment/step.ts';
import { ExecaShell } from '../../../src/shell/execa-shell.ts';
import { startIsolation } from '../../../src/shell/isolation.ts';
import { ScriptedJsonLlm } from './fake-llm.ts';
import { tempRepo } from './support.ts';

describe('phases/environment: setup commands run as the command user (issue 19 §3)', () => {
  let repo: ReturnType<typeof tempRepo>;
  afterEach(() => repo?.cleanup());

  it('setup and its checks run as the command user when mr-agent is root, as its own user with accept-risk elsewhere (issue 19 §3)', async () => {
    repo = tempRepo({ 'package.json': '{}' });
    const { config } = await loadConfig({ env: {}, file: null });
    const isolation = await startIsolation({
      security: { isolation: 'accept-risk', command_user: 'agent' },
      checkout: repo.dir,
      stateDir: '.mr-agent',
    });
    const redactor = new Redactor();
    const step = environmentStep({
      config,
      llm: new ScriptedJsonLlm(),
      shell: new ExecaShell(),
      clock: new FakeClock(),
      logger: createMemoryLogger({ redactor, level: 'debug' }).logger,
      redactor,
      hostEnv: { PATH: process.env.PATH, HOME: '/root-home-not-for-commands' },
      repoDir: repo.dir,
      prompts: promptFiles(),
      isolation,
    });
    const expected =
      isolation.kind === 'separate-user' ? isolation.user.uid : (process.getuid?.() ?? -1);

    const { handoff } = await step.setup({
      name: 'node',
      setup_commands: ['id -u > setup-uid.txt; echo "$HOME" > setup-home.txt'],
      verification: [{ command: 'id -u', expected_output: String(expected) }],
    });

    expect(handoff.setup_status).to.equal('success');
    const read = (name: string) => readFile(path.join(repo.dir, name), 'utf8');
    expect((await read('setup-uid.txt')).trim()).to.equal(String(expected));
    expect(isolation.kind).to.equal(process.getuid?.() === 0 ? 'separate-user' : 'same-user');
    if (isolation.kind === 'separate-user')
      expect((await read('setup-home.txt')).trim()).to.equal(isolation.user.home);
  });
});
