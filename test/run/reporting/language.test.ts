import { expect } from 'chai';
import { loadConfig } from '../../../src/config/load.ts';
import { notesLanguage } from '../../../src/run/reporting/index.ts';

describe('run/reporting: the notes language (#23 notes.language, MR_AGENT_LANGUAGE)', () => {
  it('#23 auto (the default) follows the language of the request', async () => {
    const { config } = await loadConfig({ env: {}, file: null });
    expect(config.notes.language).to.equal('auto');
    expect(notesLanguage({ config, title: 'テストが失敗しています。修正してください' })).to.equal(
      'ja',
    );
    expect(notesLanguage({ config, title: 'fix the failing test' })).to.equal('en');
  });

  it('#23 MR_AGENT_LANGUAGE and notes.language fix the language whatever the request', async () => {
    const fromEnv = (await loadConfig({ env: { MR_AGENT_LANGUAGE: 'ja' }, file: null })).config;
    expect(notesLanguage({ config: fromEnv, title: 'fix the failing test' })).to.equal('ja');
    const fromSet = (await loadConfig({ env: {}, file: null, sets: ['notes.language=en'] })).config;
    expect(notesLanguage({ config: fromSet, title: 'テストを直して' })).to.equal('en');
    let error: unknown;
    try {
      await loadConfig({ env: { MR_AGENT_LANGUAGE: 'fr' }, file: null });
    } catch (e) {
      error = e;
    }
    expect((error as { problems: string[] }).problems.join('\n')).to.match(
      /MR_AGENT_LANGUAGE|notes\.language/,
    );
  });
});
