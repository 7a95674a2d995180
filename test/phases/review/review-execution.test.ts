import { expect } from 'chai';
import { action, planWith, reflection } from '../../support/plans.ts';
import {
  complete,
  FAIL,
  PASS,
  phaseOf,
  plan,
  promptsOf,
  review,
  scenario,
  writeHello,
} from './harness.ts';

describe('review → revise: the execution review, suggestions and options (seed 004; SPEC G1)', () => {
  it('G1 an execution FAIL is revised through a reflection: the reviewer sees the diff and the success criteria, the feedback reaches the revision', async () => {
    const fix = action('task_2', 'Fix hello.txt');
    const run = await scenario({
      steps: [
        plan(),
        review('planning', PASS),
        ...writeHello.steps('helo\n'),
        review('execution', FAIL('hello.txt says "helo", not "hello".'), [
          '+helo',
          'AC-1: hello.txt says hello',
        ]),
        {
          purpose: 'reflection',
          json: reflection('partial', { reason: 'typo', actions: [fix] }),
          contains: 'hello.txt says "helo", not "hello".',
        },
        {
          purpose: 'execution',
          toolCalls: [{ name: 'write_file', arguments: { path: 'hello.txt', content: 'hello\n' } }],
        },
        { purpose: 'execution', content: 'DONE: fixed the typo' },
        review('execution', PASS, ['+hello', 'Your feedback on the previous version']),
        complete,
      ],
    });
    run.llm.assertAllUsed();
    expect(run.outcome).to.include({ state: 'COMPLETE', exitCode: 0 });
    expect(run.messages).to.include('Phase execution: Starting revise step');
    expect(await phaseOf(run, 'execution')).to.include({ retry_count: 1, current_step: 'review' });
    const diff = promptsOf(run, 'review.execution')[0]!;
    expect(diff).to.contain('hello.txt').and.not.contain('.mr-agent');
  });

  it("seed 004 AC-4 an execution revise with no proposed change goes back to execution with the reviewer's feedback, not to the same diff", async () => {
    const feedback = 'hello.txt says helo instead of hello.';
    const run = await scenario({
      steps: [
        plan(),
        review('planning', PASS),
        ...writeHello.steps('helo\n'),
        review('execution', FAIL(feedback), '+helo'),
        // the reflection proposes no change …
        { purpose: 'reflection', json: reflection('partial') },
        // … so execution runs again, with the feedback as its action
        {
          purpose: 'execution',
          toolCalls: [{ name: 'write_file', arguments: { path: 'hello.txt', content: 'hello\n' } }],
          contains: feedback,
        },
        { purpose: 'execution', content: 'DONE: fixed the typo' },
        review('execution', PASS, '+hello'),
        complete,
      ],
    });
    run.llm.assertAllUsed();
    expect(run.outcome).to.include({ state: 'COMPLETE', exitCode: 0 });
    const [first, second] = promptsOf(run, 'review.execution');
    expect(second).to.not.equal(first);
    expect(run.outcome.actions.map((a) => a.action.purpose)[1]).to.match(
      /^Address the execution review's feedback/,
    );
    expect(await run.note()).to.contain("Address the execution review's feedback");
  });

  it('G1 an execution phase still FAIL after its revisions fails the run; verification is skipped', async () => {
    const run = await scenario({
      sets: ['review.max_revisions=1'],
      steps: [
        plan(),
        review('planning', PASS),
        ...writeHello.steps(),
        review('execution', 'Verdict: FAIL\nThe file lacks a trailing newline.'),
        { purpose: 'reflection', json: reflection('partial') },
        { purpose: 'execution', content: 'DONE: nothing to change', contains: 'trailing newline' },
        review('execution', 'Final decision: FAIL'),
      ],
    });
    run.llm.assertAllUsed();
    expect(run.outcome).to.include({ state: 'FAILED', reason: 'phase_failed', exitCode: 1 });
    expect(run.messages).to.include('Skipping subsequent phases due to failed phase: execution');
    const phases = (await run.metadata()).phases;
    expect(phases['execution']).to.include({ status: 'failed', retry_count: 1 });
    expect(phases['verification']).to.include({ status: 'skipped' });
    expect(run.llm.calls.map((c) => c.purpose)).not.to.include('completion');
  });

  it('PASS_WITH_SUGGESTIONS goes on without a revise and keeps the suggestions in the progress note and the Task Note', async () => {
    const suggestion = 'Consider a test that reads hello.txt back.';
    const run = await scenario({
      steps: [
        plan(),
        review(
          'planning',
          JSON.stringify({ result: 'PASS_WITH_SUGGESTIONS', feedback: suggestion }),
        ),
        ...writeHello.steps(),
        review('execution', PASS),
        complete,
      ],
    });
    run.llm.assertAllUsed();
    expect(run.outcome).to.include({ state: 'COMPLETE', exitCode: 0 });
    expect(run.messages).not.to.include('Phase planning: Starting revise step');
    const note = await run.note();
    expect(note).to.contain('💡 **Reviewer suggestion:**').and.contain(suggestion);
    expect(note).to.contain('💡 Pass with suggestions');
    expect(await run.taskNote()).to.contain(`Review suggestions (planning): ${suggestion}`);
  });

  it('review.phases without planning reviews only the execution', async () => {
    const run = await scenario({
      sets: ['review.phases=execution'],
      steps: [
        plan(planWith([action('task_1', 'Write hello.txt')])),
        ...writeHello.steps(),
        review('execution', PASS),
        complete,
      ],
    });
    run.llm.assertAllUsed();
    expect(run.outcome.reviews.map((r) => r.phase)).to.deep.equal(['execution']);
  });

  it('review.enabled=false: no review call, nothing recorded', async () => {
    const run = await scenario({
      sets: ['review.enabled=false'],
      steps: [plan(), ...writeHello.steps(), complete],
    });
    run.llm.assertAllUsed();
    expect(run.outcome).to.include({ state: 'COMPLETE', exitCode: 0 });
    expect(run.outcome.reviews).to.deep.equal([]);
    expect(await run.note()).not.to.contain('### 🔍 Reviews');
  });

  it('review.max_revisions=0: the first FAIL fails the phase without a revise', async () => {
    const run = await scenario({
      sets: ['review.max_revisions=0'],
      steps: [plan(), review('planning', FAIL('Wrong file.'))],
    });
    run.llm.assertAllUsed();
    expect(run.outcome).to.include({ reason: 'phase_failed', exitCode: 1 });
    expect(run.messages).not.to.include('Phase planning: Starting revise step');
    expect(run.messages).to.include(
      'Phase planning: Retry limit exceeded (0/0). Marking phase as failed.',
    );
    expect(await phaseOf(run, 'planning')).to.include({ status: 'failed', retry_count: 0 });
  });
});
