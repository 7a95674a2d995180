import { expect } from 'chai';
import type { ChatMessage } from '../../../src/core/llm-port.ts';
import { progressDigest } from '../../../src/core/progress/digest.ts';
import { compactMessages, messageChars } from '../../../src/phases/execute/budget.ts';
import type { ActionRecord } from '../../../src/core/records.ts';
import { action } from '../../support/plans.ts';

function record(i: number): ActionRecord {
  return {
    key: `A${i}`,
    action: action(`task_${i}`, `Step ${i}`),
    status: i % 5 === 0 ? 'failure' : 'success',
    summary: `DONE: step ${i} ${'x'.repeat(50)}`,
    toolCalls: [],
    turns: 2,
    startedAt: 0,
    finishedAt: 0,
  };
}

describe('execute: context budget (K4)', () => {
  it('K4 the progress digest has the same size for 40 and 500 earlier actions', () => {
    const digest = (n: number) =>
      progressDigest({
        actions: Array.from({ length: n }, (_, i) => record(i + 1)),
        upcoming: Array.from({ length: n }, (_, i) => ({
          key: `B${i}`,
          action: action('t', `Later ${i}`),
        })),
        changedFiles: new Set(Array.from({ length: n }, (_, i) => `src/file-${i}.ts`)),
      });
    const small = digest(40);
    const large = digest(500);
    expect(large.length)
      .to.be.below(small.length * 1.1)
      .and.below(2000);
    expect(large).to.contain('Actions executed so far: 500 (100 failed).');
    expect(large).to.contain('(497 earlier actions are not shown.)');
    expect(large).to.contain('(and 480 more)');
    expect(large).to.contain('A500 task_500 [failure]');
  });

  it('K4 compacts older tool output and long arguments once the budget is passed, keeping the latest', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 'system' },
      { role: 'user', content: 'do it' },
    ];
    for (let i = 0; i < 8; i++) {
      messages.push({
        role: 'assistant',
        content: null,
        toolCalls: [
          {
            id: `c${i}`,
            name: 'write_file',
            arguments: JSON.stringify({ path: `f${i}`, content: 'y'.repeat(3000) }),
          },
        ],
      });
      messages.push({ role: 'tool', toolCallId: `c${i}`, content: 'z'.repeat(5000) });
    }
    const before = messageChars(messages);
    compactMessages(messages, 30_000);
    expect(before).to.be.above(60_000);
    expect(messageChars(messages)).to.be.at.most(30_000);
    const tools = messages.filter((m) => m.role === 'tool');
    expect(tools[0]!.content).to.match(/^\[elided: earlier tool output of 5000 characters\]/);
    expect(tools.at(-1)!.content).to.have.length(5000);
    const lastAssistant = messages.filter((m) => m.role === 'assistant').at(-1)!;
    expect(lastAssistant.toolCalls![0]!.arguments).to.have.length.above(3000);
  });

  it('leaves a conversation under budget untouched', () => {
    const messages: ChatMessage[] = [{ role: 'user', content: 'short' }];
    compactMessages(messages, 10_000);
    expect(messages).to.deep.equal([{ role: 'user', content: 'short' }]);
  });
});
