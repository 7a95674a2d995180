import { expect } from 'chai';
import { promptLibrary } from '../../src/llm/prompt-files.ts';
import { replanPrompts } from '../../src/phases/replan/prompts.ts';

describe('core/prompts: the answer language (#23)', () => {
  it('#23 prompts stay English; for Japanese notes one instruction asks for Japanese user-facing text', async () => {
    const english = await promptLibrary('').load('planning');
    const japanese = await promptLibrary('', 'ja').load('planning');
    expect(japanese.startsWith(english.trimEnd())).to.equal(true);
    const added = japanese.slice(english.trimEnd().length);
    expect(added).to.contain('## Language of your answers');
    expect(added).to.contain('in Japanese');
    expect(added).to.not.match(/\{\{/);
    expect(await promptLibrary('', 'en').load('planning')).to.equal(english);
  });

  it('#23 the replan system prompt gets the instruction, the checkpoint prompts do not', async () => {
    const ja = replanPrompts(promptLibrary('', 'ja'));
    const en = replanPrompts(promptLibrary(''));
    expect(await ja.load('system')).to.contain('in Japanese');
    expect(await ja.load('execution')).to.equal(await en.load('execution'));
  });
});
