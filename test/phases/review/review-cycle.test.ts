import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import type { PhaseMetadata } from '../../../src/history/metadata.ts';
import { action, planWith, reflection } from '../../support/plans.ts';
import {
  complete,
  FAIL,
  PASS,
  plan,
  promptsOf,
  review,
  runReviewScenario,
  writeHello,
  type ReviewRun,
} from './harness.ts';

/** seed 004 AC-1: the verdict JSON followed by prose (the reason in Japanese). */
const JSON_THEN_PROSE =
  '{"result": "FAIL"} \n理由: タスク分割が不十分です。task_1 をファイル作成とテストに分けてください。';
/** seed 004 AC-2: a PASS-looking sentence, then the final verdict FAIL. */
const DISTRACTOR = [
  '## レビュー結果',
  '',
  '計画にはテスト手順が含まれていません。指摘事項を修正すれば、再度レビューを実施し、PASS判定が可能になります。',
  '',
  '最終判定: FAIL',
].join('\n');
/** seed 004 AC-3: `判定: PASS` and `最終判定: FAIL` in one reply. */
const BOTH_MARKERS = [
  '判定: PASS',
  '',
  'ただし成功基準が検証できません。',
  '',
  '最終判定: FAIL',
].join('\n');

const runs: ReviewRun[] = [];
afterEach(async () => {
  while (runs.length) await runs.pop()!.cleanup();
});

async function scenario(...args: Parameters<typeof runReviewScenario>): Promise<ReviewRun> {
  const run = await runReviewScenario(...args);
  runs.push(run);
  return run;
}

/** A run whose planning review FAILs once with `reply`, then passes; the rest succeeds. */
function failOnceThenPass(reply: string) {
  return [
    plan(),
    review('planning', reply),
    plan(),
    review('planning', PASS),
    ...writeHello.steps(),
    review('execution', PASS),
    complete,
  ];
}

function phaseOf(run: ReviewRun, phase: string): Promise<PhaseMetadata> {
  return run.metadata().then((m) => m.phases[phase]!);
}

describe('review → revise cycle (seed 004; SPEC G1, G2, I4)', () => {
  it('AC-1 a verdict JSON followed by prose is read from the JSON ("JSON extraction succeeded"), and the FAIL is revised', async () => {
    const run = await scenario({ steps: failOnceThenPass(JSON_THEN_PROSE) });
    run.llm.assertAllUsed();
    const extracted = run.log.filter((e) => e['message'] === 'JSON extraction succeeded');
    expect(extracted[0]).to.include({ phase: 'planning', attempt: 0, result: 'FAIL' });
    expect(run.messages).to.include('Phase planning: Starting revise step');
    // the reason written after the JSON reaches the revision
    expect(promptsOf(run, 'planning')[1]).to.contain('タスク分割が不十分です');
    expect(run.outcome).to.include({ state: 'COMPLETE', exitCode: 0 });
  });

  it('AC-2 "PASS判定が可能になります" with a final FAIL is FAIL ("Fallback verdict: FAIL (marker pattern: 最終判定)")', async () => {
    const run = await scenario({ steps: failOnceThenPass(DISTRACTOR) });
    run.llm.assertAllUsed();
    expect(run.messages).to.include('Fallback verdict: FAIL (marker pattern: 最終判定)');
    expect(run.messages).to.include('Phase planning: Starting revise step');
    expect(promptsOf(run, 'planning')[1]).to.contain('計画にはテスト手順が含まれていません');
    expect(run.outcome.reviews.map((r) => `${r.phase}#${r.attempt}:${r.result}`)).to.deep.equal([
      'planning#1:FAIL',
      'planning#2:PASS',
      'execution#1:PASS',
    ]);
  });

  it('AC-3 "最終判定: FAIL" wins over "判定: PASS"', async () => {
    const run = await scenario({ steps: failOnceThenPass(BOTH_MARKERS) });
    run.llm.assertAllUsed();
    expect(run.messages).to.include('Fallback verdict: FAIL (marker pattern: 最終判定)');
    expect(run.outcome.reviews[0]).to.include({ phase: 'planning', result: 'FAIL' });
  });

  it('AC-4 a planning FAIL runs the revise step: "Phase planning: Starting revise step", current_step = revise, feedback in the revision', async () => {
    const seen: Array<PhaseMetadata | undefined> = [];
    const run = await scenario({
      steps: failOnceThenPass(FAIL('Add a step that tests hello.txt.')),
      before: {
        purpose: 'planning',
        call: async (live, n) => {
          if (n !== 2) return;
          await live.reporter.settled();
          seen.push((await live.metadata()).phases['planning']);
        },
      },
    });
    run.llm.assertAllUsed();
    expect(seen[0]).to.include({ status: 'in_progress', current_step: 'revise', retry_count: 1 });
    const revise = run.messages.indexOf('Phase planning: Starting revise step');
    expect(revise).to.be.greaterThan(-1);
    expect(run.llm.calls.map((c) => c.purpose)).to.deep.equal([
      'planning',
      'review.planning',
      'planning',
      'review.planning',
      'execution',
      'execution',
      'review.execution',
      'completion',
    ]);
    expect(promptsOf(run, 'planning')[1])
      .to.contain('Feedback on the previous plan')
      .and.contain('Add a step that tests hello.txt.');
    // the second review sees its own earlier feedback
    expect(promptsOf(run, 'review.planning')[1]).to.contain('Add a step that tests hello.txt.');
    expect(await phaseOf(run, 'planning')).to.include({
      status: 'completed',
      current_step: 'review',
      retry_count: 1,
    });
  });

  it('AC-5 still FAIL after 3 revisions: planning is failed in metadata.json with retry_count 3, and the later phases never run', async () => {
    const run = await scenario({
      steps: [
        plan(),
        review('planning', DISTRACTOR),
        plan(),
        review('planning', FAIL('Still no test step.')),
        plan(),
        review('planning', BOTH_MARKERS),
        plan(),
        review('planning', FAIL('Still no test step, last try.')),
      ],
    });
    run.llm.assertAllUsed();
    expect(run.messages).to.include(
      'Phase planning: Retry limit exceeded (3/3). Marking phase as failed.',
    );
    expect(run.messages.filter((m) => m === 'Phase planning: Starting revise step')).to.have.length(
      3,
    );
    const planning = await phaseOf(run, 'planning');
    expect(planning).to.include({ status: 'failed', retry_count: 3 });
    expect(planning.completed_at).to.be.a('string');
    const phases = (await run.metadata()).phases;
    for (const later of ['environment_setup', 'execution', 'verification'])
      expect(phases[later], later).to.include({ status: 'skipped' });
    expect(run.llm.calls.map((c) => c.purpose)).not.to.include('execution');
  });

  it('AC-6 a failed phase skips the subsequent phases ("Skipping subsequent phases due to failed phase: planning") and the run exits 1', async () => {
    const run = await scenario({
      sets: ['review.max_revisions=1'],
      steps: [plan(), review('planning', FAIL('No.')), plan(), review('planning', FAIL('No!'))],
    });
    run.llm.assertAllUsed();
    const retry = run.messages.indexOf(
      'Phase planning: Retry limit exceeded (1/1). Marking phase as failed.',
    );
    const skip = run.messages.indexOf('Skipping subsequent phases due to failed phase: planning');
    expect(retry).to.be.greaterThan(-1);
    expect(skip).to.be.greaterThan(retry);
    expect(run.outcome).to.include({ state: 'FAILED', reason: 'phase_failed', exitCode: 1 });
    expect(run.outcome.summary).to.contain(
      'Skipping subsequent phases due to failed phase: planning',
    );
    const note = await run.note();
    expect(note).to.match(/Planning[^\n]*failed/i);
    expect(note).to.contain('review FAIL after 1 revision');
    expect(note).to.contain('Skipping subsequent phases due to failed phase: planning');
    expect(note).to.match(/Execution[^\n]*skipped/i);
  });

  it('FR-3 a revise that then passes continues normally (retry 2 → PASS)', async () => {
    const run = await scenario({
      steps: [
        plan(),
        review('planning', FAIL('Add a test step.')),
        plan(),
        review('planning', DISTRACTOR),
        plan(),
        review('planning', PASS),
        ...writeHello.steps(),
        review('execution', PASS),
        complete,
      ],
    });
    run.llm.assertAllUsed();
    expect(run.outcome).to.include({ state: 'COMPLETE', exitCode: 0 });
    expect(await phaseOf(run, 'planning')).to.include({
      status: 'completed',
      retry_count: 2,
      current_step: 'review',
    });
    expect(await phaseOf(run, 'execution')).to.include({ status: 'completed', retry_count: 0 });
    expect(await readFile(path.join(run.dir, 'hello.txt'), 'utf8')).to.equal('hello\n');
    expect(run.messages).not.to.include('Skipping subsequent phases due to failed phase: planning');
  });

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

  it('G1 an execution phase still FAIL after its revisions fails the run; verification is skipped', async () => {
    const run = await scenario({
      sets: ['review.max_revisions=1'],
      steps: [
        plan(),
        review('planning', PASS),
        ...writeHello.steps(),
        review('execution', 'Verdict: FAIL\nThe file lacks a trailing newline.'),
        { purpose: 'reflection', json: reflection('partial') },
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
    expect(note).to.contain('PASS_WITH_SUGGESTIONS').and.contain(suggestion);
    expect(await run.taskNote()).to.contain(`Review suggestions (planning): ${suggestion}`);
  });

  it('G2 a reply without JSON or marker is FAIL and is revised', async () => {
    const run = await scenario({ steps: failOnceThenPass('The plan looks fine to me overall.') });
    run.llm.assertAllUsed();
    expect(run.messages).to.include(
      'Fallback verdict: FAIL (no marker pattern found, defaulting to FAIL)',
    );
    expect(promptsOf(run, 'planning')[1]).to.contain('The plan looks fine to me overall.');
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
});
