import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import type { PhaseMetadata } from '../../../src/history/metadata.ts';
import {
  complete,
  FAIL,
  failOnceThenPass,
  PASS,
  phaseOf,
  plan,
  promptsOf,
  review,
  scenario,
  writeHello,
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
    expect(note).to.match(/\*\*Planning ❌/);
    expect(note).to.contain('| Plan | ❌ Changes requested');
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

  it('G2 a reply without JSON or marker is FAIL and is revised', async () => {
    const run = await scenario({ steps: failOnceThenPass('The plan looks fine to me overall.') });
    run.llm.assertAllUsed();
    expect(run.messages).to.include(
      'Fallback verdict: FAIL (no marker pattern found, defaulting to FAIL)',
    );
    expect(promptsOf(run, 'planning')[1]).to.contain('The plan looks fine to me overall.');
  });
});
