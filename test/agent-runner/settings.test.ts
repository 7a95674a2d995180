import { expect } from 'chai';
import { configStages } from '../../src/config/load.ts';
import { OPTION_BY_KEY } from '../../src/config/options.ts';
import { defaultSettings, settingsFromConfig } from '../../src/agent-runner/settings.ts';

/** Option defaults come only from config/options.ts (issue 17 #7). */
describe('agent-runner/settings', () => {
  const optionDefault = (key: string) => OPTION_BY_KEY.get(key)!.default;

  it('issue 17 #7 the defaults of option-backed settings are the options table’s', () => {
    expect(defaultSettings()).to.deep.include({
      stateDir: optionDefault('state.directory'),
      sandbox: optionDefault('runner.worker.sandbox'),
      promptsDir: optionDefault('prompts.directory'),
      testTimeoutSec: optionDefault('execution.command_timeout_sec'),
    });
  });

  it('a configured value replaces the default', () => {
    const { base } = configStages({ env: {}, sets: ['execution.command_timeout_sec=42'] });
    expect(settingsFromConfig(base).testTimeoutSec).to.equal(42);
  });
});
