/**
 * Seed 003 §11.1: a replan's start, completion and failure are told — in
 * the progress note's history, within the one-note rule (no note of their
 * own; only the 🔁 decision note of §11.2 is posted).
 */
import { expect } from 'chai';
import { parseMarker } from '../../src/report/marker.ts';
import { renderProgressNote } from '../../src/report/progress/render.ts';
import { addReplanEvent, initialProgress } from '../../src/core/progress/updates.ts';
import { exec, json } from '../support/script.ts';
import { action, assessment, planWith } from '../support/plans.ts';
import { RecordingTarget } from '../support/recording-target.ts';
import { englishWords, renderGitLab } from '../support/gitlab-markdown.ts';
import { judge, planningOk, runWithReplanning } from './support.ts';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const twoFiles = planWith([action('task_1', 'Create a.txt'), action('task_2', 'Create b.txt')]);

const partialReplan = judge('execution', {
  replan_needed: true,
  confidence: 0.9,
  reasoning: 'write_file cannot create b.txt; the remaining actions need another way.',
  replan_type: 'partial_replan',
  replan_level: 2,
  target_phase: 'execution',
  issues_found: ['b.txt write failed'],
});

/** Which kinds of note the run created (by their hidden marker). */
function createdKinds(target: RecordingTarget): string[] {
  return target.calls
    .filter((c) => c.op === 'create')
    .map((c) => parseMarker(c.body)?.kind ?? 'unmarked');
}

/** The folded history of the progress note. */
function history(target: RecordingTarget): string {
  return target.lastBody('1').split('<details>')[1] ?? '';
}

describe('replan: seed 003 §11.1 start, completion and failure in the progress note', () => {
  it('seed 003 §11.1 a replan that is carried out: its start and completion are lines in the progress note’s history, no note of their own', async () => {
    const target = new RecordingTarget();
    const run = await runWithReplanning(
      {
        target,
        steps: [
          json('planning', twoFiles),
          ...planningOk(),
          exec.say('DONE: a.txt created'),
          judge('execution'),
          exec.say('FAILED: b.txt could not be written'),
          partialReplan,
          json(
            'planning',
            planWith([action('task_2', 'Create b.txt with a patch', 'apply_patch')]),
          ),
          judge('action_sequence'),
          exec.say('DONE: b.txt created'),
          judge('execution'),
          json('completion', assessment(true)),
          judge('final_evaluation'),
        ],
      },
      cleanups,
    );
    run.llm.assertAllUsed();
    expect(run.outcome.state).to.equal('COMPLETE');
    const folded = history(target);
    expect(folded).to.contain('#### Replans');
    expect(folded).to.match(
      /- 🔁 \d\d:\d\d UTC · started at execution: re-plan the remaining steps/,
    );
    expect(folded).to.match(
      /- ✅ \d\d:\d\d UTC · completed in .+: the run went on with the revised plan/,
    );
    expect(folded).not.to.contain('failed after');
    // one progress note and the closing reply: the decision, start and completion are history lines
    expect(createdKinds(target)).to.deep.equal(['progress', 'summary']);
  });

  it('seed 003 §11.1 a replan the run never got past: its failure is a line in the progress note’s history', async () => {
    const target = new RecordingTarget();
    const run = await runWithReplanning(
      {
        target,
        steps: [
          json('planning', twoFiles),
          ...planningOk(),
          exec.say('DONE: a.txt created'),
          judge('execution'),
          exec.say('FAILED: b.txt could not be written'),
          partialReplan,
          // the re-planning answer never comes: the model's reply is no plan, again and again
          json('planning', { nonsense: true }),
          json('planning', { nonsense: true }),
          json('planning', { nonsense: true }),
          json('planning', { nonsense: true }),
        ],
      },
      cleanups,
    );
    expect(run.outcome.state).to.equal('FAILED');
    const folded = history(target);
    expect(folded).to.match(/- 🔁 \d\d:\d\d UTC · started at execution/);
    expect(folded).to.match(
      /- ❌ \d\d:\d\d UTC · failed after .+: the run ended before the revised plan reached its next step/,
    );
    expect(createdKinds(target).filter((k) => k !== 'progress' && k !== 'summary')).to.deep.equal(
      [],
    );
  });

  it('seed 003 §11.1 #23 the replan history in a Japanese note is Japanese', () => {
    let s = initialProgress({ taskId: 't', title: 'テストを直す', startedAt: 0, language: 'ja' });
    s = addReplanEvent(s, { event: 'started', point: 'execution', kind: 'partial_replan', at: 0 });
    s = addReplanEvent(s, {
      event: 'completed',
      point: 'execution',
      at: 45_000,
      durationMs: 45_000,
    });
    s = addReplanEvent(s, { event: 'started', point: 'task_decomposition', at: 60_000 });
    s = addReplanEvent(s, {
      event: 'failed',
      point: 'task_decomposition',
      at: 90_000,
      durationMs: 30_000,
    });
    const note = renderProgressNote(s);
    expect(note).to.contain('#### 再計画');
    expect(note).to.contain('- 🔁 0:00 UTC · 実行で開始: 残りのステップを再計画');
    expect(note).to.contain('- ✅ 0:00 UTC · 完了（45 秒）');
    expect(note).to.contain('- ❌ 0:01 UTC · 失敗（30 秒後）');
    expect(
      englishWords(renderGitLab(note)).filter((w) => !['UTC', 'mr', 'agent'].includes(w)),
    ).to.deep.equal([]);
  });
});
