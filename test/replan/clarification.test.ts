import { expect } from 'chai';
import { loadConfig } from '../../src/config/load.ts';
import { createMemoryLogger } from '../../src/log/logger.ts';
import { Redactor } from '../../src/log/redact.ts';
import { Clarifier, isAffirmative, type Question } from '../../src/phases/replan/clarification.ts';
import { FakeClock } from '../../src/core/clock.ts';
import { hasUnescapedQuickAction } from '../../src/report/markdown.ts';
import { RecordingTarget } from '../support/recording-target.ts';
import { ScriptedAnswers } from './support.ts';

const question: Question = {
  questions: ['Which branch?', '/merge this now?'],
  context: 'Two branches match.',
  assumptions: ['main'],
};

async function clarifier(sets: string[], answers?: (clock: FakeClock) => ScriptedAnswers) {
  const { config } = await loadConfig({ env: {}, file: null, sets });
  const clock = new FakeClock();
  const redactor = new Redactor();
  const { logger, lines } = createMemoryLogger({ redactor });
  const target = new RecordingTarget();
  const source = answers?.(clock);
  const c = new Clarifier({
    config,
    clock,
    logger,
    notes: { target, context: { taskId: 'task-1', jobId: '5' }, redactor },
    ...(source ? { answers: source } : {}),
  });
  return { c, clock, target, lines, source };
}

describe('replan: clarification flow (F4; seed 003 §11.3, §12.1)', () => {
  it('timeout 0: the note says the run is paused and nothing is awaited', async () => {
    const h = await clarifier(
      ['planning.replanning.goal_understanding.auto_assume_timeout_minutes=0'],
      (clock) => new ScriptedAnswers(() => clock.now()),
    );
    const result = await h.c.ask(question, { pausable: true });
    expect(result.kind).to.equal('paused');
    expect(h.clock.sleeps).to.deep.equal([]);
    expect(h.source!.polls).to.deep.equal([]);
    const body = h.target.lastBody('1');
    expect(body).to.contain('state=awaiting_answer');
    expect(body).to.contain('The run is paused until someone replies here.');
    // the question is bold, so no line starts with the slash; none is left unescaped either way
    expect(body).to.contain('2. **/merge this now?**');
    expect(hasUnescapedQuickAction(body)).to.equal(false);
  });

  it('auto_assume_on_no_response off: after the wait the run stops awaiting an answer', async () => {
    const h = await clarifier(
      [
        'planning.replanning.goal_understanding.auto_assume_on_no_response=false',
        'planning.replanning.goal_understanding.auto_assume_timeout_minutes=2',
      ],
      (clock) => new ScriptedAnswers(() => clock.now()),
    );
    const result = await h.c.ask(question, { pausable: true });
    expect(result.kind).to.equal('paused');
    expect(h.clock.sleeps).to.deep.equal([30_000, 30_000, 30_000, 30_000]);
    expect(h.source!.polls).to.have.length(5);
    const body = h.target.lastBody('1');
    expect(body).to.contain('state=awaiting_answer').and.contain('the run has stopped');
  });

  it('replies from people without access, or carrying the agent marker, are not answers', async () => {
    const h = await clarifier(
      ['planning.replanning.goal_understanding.auto_assume_timeout_minutes=1'],
      (clock) => {
        const a = new ScriptedAnswers(() => clock.now());
        a.add('release', { allowed: false, username: 'guest' });
        a.add('<!-- mr-agent:reply task=task-1 -->\nnoted');
        return a;
      },
    );
    const result = await h.c.ask(question, { pausable: true });
    expect(result.kind).to.equal('no_answer');
    expect(h.target.lastBody('1')).to.contain('state=assumed');
  });

  it('F4 an answered question: its heading says who answered, the deadline goes away, the thread is resolved', async () => {
    const h = await clarifier(
      ['planning.replanning.goal_understanding.auto_assume_timeout_minutes=2'],
      (clock) => {
        const a = new ScriptedAnswers(() => clock.now());
        a.add('1. release\n2. no', { username: 'dana' });
        return a;
      },
    );
    const result = await h.c.ask(question, { pausable: true });
    expect(result.kind).to.equal('answered');
    const body = h.target.lastBody('1');
    expect(body.split('\n')[1]).to.match(/^### ✅ Answered by @dana/);
    expect(body).to.contain('state=answered').and.contain('1. **Which branch?**');
    expect(body).to.not.contain('I will go on').and.not.contain('Reply in this thread');
    expect(h.target.resolved).to.deep.equal(['1']);
  });

  it('F4 a question nobody answered: its heading says the run went on with the defaults, the thread is resolved', async () => {
    const h = await clarifier(
      ['planning.replanning.goal_understanding.auto_assume_timeout_minutes=1'],
      (clock) => new ScriptedAnswers(() => clock.now()),
    );
    await h.c.ask(question, { pausable: true });
    const body = h.target.lastBody('1');
    expect(body.split('\n')[1]).to.match(/^### ⏭️ No answer within 1m/);
    expect(body).to.not.match(/At \d\d:\d\d UTC/);
    expect(h.target.resolved).to.deep.equal(['1']);
  });

  it('F4 the question shows how to answer with an example reply, one line per question', async () => {
    const h = await clarifier(
      ['planning.replanning.goal_understanding.auto_assume_timeout_minutes=0'],
      (clock) => new ScriptedAnswers(() => clock.now()),
    );
    await h.c.ask(question, { pausable: true });
    const body = h.target.lastBody('1');
    expect(body).to.contain(
      '**Reply in this thread**, no `/agent` needed: one line per question, for example `1. <your answer>` `2. <your answer>`.',
    );
    // a stopped run still waits for the reply: its thread stays open
    expect(h.target.resolved).to.deep.equal([]);
  });

  it('without a way to read answers the flow does not wait', async () => {
    const h = await clarifier([]);
    const result = await h.c.ask(question, { pausable: true });
    expect(result.kind).to.equal('no_answer');
    expect(h.clock.sleeps).to.deep.equal([]);
    expect(h.lines.join('\n')).to.contain('answers cannot be read here');
  });

  const replies: Array<[string, boolean]> = [
    ['yes', true],
    ['Yes, please replan.', true],
    ['OK', true],
    ['go ahead', true],
    ['👍', true],
    ['> quoted\nyes', false],
    ['no', false],
    ['not yet', false],
    ['yesterday it worked', false],
    ['', false],
  ];
  for (const [text, expected] of replies) {
    it(`"${text.replace(/\n/g, '\\n')}" ${expected ? 'confirms' : 'does not confirm'}`, () => {
      expect(isAffirmative(text)).to.equal(expected);
    });
  }
});
