import { expect } from 'chai';
import { z } from 'zod';
import { ExternalServiceError, ModelBehaviorError } from '../../src/errors/errors.ts';
import type { ChatRequest } from '../../src/core/llm-port.ts';
import { ScriptedLlm } from '../../src/testkit/scripted-llm.ts';

const chat = (purpose: ChatRequest['purpose'], text = 'go'): ChatRequest => ({
  purpose,
  role: 'execution',
  messages: [{ role: 'user', content: text }],
});

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the call to fail');
}

const Plan = z.object({ steps: z.array(z.string()).min(1) });

describe('testkit/scripted-llm', () => {
  it('answers per purpose in script order, records calls and usage', async () => {
    const llm = new ScriptedLlm([
      { purpose: 'execution', toolCalls: [{ name: 'read_file', arguments: { path: 'a' } }] },
      { purpose: 'planning', content: 'plan' },
      { purpose: 'execution', contains: 'result', content: 'done' },
    ]);

    expect((await llm.chat(chat('planning'))).content).to.equal('plan');
    const first = await llm.chat(chat('execution'));
    expect(first.toolCalls).to.deep.equal([
      { id: 'call_2_1', name: 'read_file', arguments: '{"path":"a"}' },
    ]);
    expect(first.finishReason).to.equal('tool_calls');
    expect((await llm.chat(chat('execution', 'the result'))).content).to.equal('done');

    llm.assertAllUsed();
    expect(llm.calls.map((c) => [c.purpose, c.step])).to.deep.equal([
      ['planning', 1],
      ['execution', 0],
      ['execution', 2],
    ]);
    expect(llm.ledger.total().calls).to.equal(3);
  });

  it('fails loudly on an unexpected call, naming the purpose and what is left', async () => {
    const llm = new ScriptedLlm([{ purpose: 'planning', content: 'x' }]);
    const error = await failure(llm.chat(chat('reflection', 'why did it fail?')));
    expect(error.message).to.contain('unexpected call for purpose reflection');
    expect(error.message).to.contain('why did it fail?');
    expect(error.message).to.contain('#1 planning');
    expect(() => llm.assertAllUsed()).to.throw('#1 planning');
  });

  it('json() validates, re-asks with the problem on the next scripted step, then gives up', async () => {
    const llm = new ScriptedLlm([
      { purpose: 'planning', content: 'Sure! {"steps": []}' },
      { purpose: 'planning', contains: 'steps', json: { steps: ['write code'] } },
    ]);
    const reply = await llm.json({
      purpose: 'planning',
      role: 'planning',
      messages: [{ role: 'user', content: 'plan' }],
      schema: Plan,
      schemaName: 'plan',
    });
    expect(reply.value).to.deep.equal({ steps: ['write code'] });
    expect(reply.reasks).to.equal(1);
    llm.assertAllUsed();

    const stubborn = new ScriptedLlm([{ purpose: 'planning', content: 'no JSON', times: 0 }], {
      maxReasks: 2,
    });
    const error = await failure(
      stubborn.json({
        purpose: 'planning',
        role: 'planning',
        messages: [],
        schema: Plan,
        schemaName: 'plan',
      }),
    );
    expect(error).to.be.instanceOf(ModelBehaviorError);
    expect(stubborn.calls).to.have.length(3);
  });

  it('throws a scripted error, matches purposes by prefix, and can insist on order', async () => {
    const outage = new ExternalServiceError('llm', 'down', { status: 500 });
    const llm = new ScriptedLlm([
      { purpose: 'review.*', error: outage },
      { purpose: 'review.*', content: 'PASS' },
    ]);
    expect(await failure(llm.chat(chat('review.planning')))).to.equal(outage);
    expect((await llm.chat(chat('review.execution'))).content).to.equal('PASS');

    const ordered = new ScriptedLlm(
      [
        { purpose: 'planning', content: 'a' },
        { purpose: 'execution', content: 'b' },
      ],
      { ordered: true },
    );
    expect((await failure(ordered.chat(chat('execution')))).message).to.contain('unexpected call');
  });
});
