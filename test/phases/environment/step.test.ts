import { expect } from 'chai';
import { loadConfig } from '../../../src/config/load.ts';
import type { LlmPort } from '../../../src/llm/port.ts';
import { createSilentLogger } from '../../../src/log/logger.ts';
import { Redactor } from '../../../src/log/redact.ts';
import { createEnvironmentStep } from '../../../src/phases/environment/step.ts';
import { FakeClock } from '../../../src/run/clock.ts';
import { ExecaShell } from '../../../src/shell/execa-shell.ts';
import { RecordingTarget } from '../../support/recording-target.ts';
import { makeTempRepo } from '../../support/temp-repo.ts';

const noModel: LlmPort = {
  chat: () => Promise.reject(new Error('the model must not be asked')),
  json: () => Promise.reject(new Error('the model must not be asked')),
};

async function stepFor(notes: RecordingTarget) {
  const { config } = await loadConfig({ env: {}, file: null });
  return createEnvironmentStep({
    config,
    llm: noModel,
    shell: new ExecaShell(),
    clock: new FakeClock(),
    logger: createSilentLogger(),
    redactor: new Redactor(),
    hostEnv: { PATH: process.env.PATH, HOME: process.env.HOME },
    notes,
    marker: { job: '7', task: 't' },
  });
}

const planned = (
  setup: string[],
  verification: Array<{ command: string; expected_output: string }>,
) => ({
  name: 'node',
  reason: 'package.json',
  detected_files: ['package.json'],
  setup_commands: setup,
  verification,
});

describe('phases/environment/step: the environment phase as the run sees it (C2, E1–E5)', function () {
  this.timeout(20_000);
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });

  it('C2, E3, E5: detects for pre-planning, sets up the planner’s choice verified by exact output, and renders the execution section', async () => {
    const repo = await makeTempRepo({
      'package.json': '{"name":"x","scripts":{"test":"node --test"}}\n',
    });
    cleanups.push(repo.cleanup);
    const notes = new RecordingTarget();
    const step = await stepFor(notes);
    const info = await step.detect(repo.dir);
    expect(info).to.include({ environment_type: 'node' });
    expect(Object.keys(info!.detected_files)).to.deep.equal(['package.json']);
    const handoff = await step.setup(
      planned(
        ['node -e "1"'],
        [{ command: `node -e "process.stdout.write('OK')"`, expected_output: 'OK' }],
      ),
    );
    expect(handoff).to.deep.equal({
      environment_ready: true,
      environment_name: 'node',
      setup_status: 'success',
      errors: [],
    });
    expect(step.executionSection(handoff)).to.contain('node');
    expect(notes.calls).to.have.length(0);
  });

  it('E4: a fatal setup failure posts the "environment setup failed" note and hands over with a warning', async () => {
    const repo = await makeTempRepo({ 'package.json': '{"name":"x"}\n' });
    cleanups.push(repo.cleanup);
    const notes = new RecordingTarget();
    const step = await stepFor(notes);
    await step.detect(repo.dir);
    const handoff = await step.setup(
      planned(['echo "ENOSPC: no space left on device" >&2; exit 1'], []),
    );
    expect(handoff).to.include({ environment_ready: false, setup_status: 'failed' });
    expect(notes.creates).to.equal(1);
    expect(notes.lastBody()).to.contain('Environment setup failed');
    expect(notes.lastBody()).to.contain('mr-agent:environment-failed job=7');
    expect(step.executionSection(handoff)).to.match(/fail/i);
  });
});
