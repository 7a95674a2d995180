import { expect } from 'chai';
import type { FakeClock } from '../../src/core/clock.ts';
import { exec, json } from '../support/script.ts';
import { action, assessment, planWith } from '../support/plans.ts';
import { RecordingTarget } from '../support/recording-target.ts';
import {
  judge,
  notesOf,
  planningOk,
  purposes,
  runWithReplanning,
  ScriptedAnswers,
  userText,
} from './support.ts';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const threeFiles = planWith([
  action('task_1', 'Create a.txt'),
  action('task_2', 'Create b.txt'),
  action('task_3', 'Create c.txt'),
]);

const finish = [json('completion', assessment(true)), judge('final_evaluation')];

function progressNote(target: RecordingTarget): string {
  return target.lastBody('1');
}

/** The part of the progress note before the folded plan history. */
function currentPlan(note: string): string {
  return note.split('<details>')[0]!;
}

describe('replan: scenarios through the orchestrator (seed 003, SPEC F3–F5)', () => {
  it('F3/F5 a failed action leads to a level-2 partial replan that keeps finished checklist items', async () => {
    const target = new RecordingTarget();
    const run = await runWithReplanning(
      {
        target,
        steps: [
          json('planning', threeFiles),
          ...planningOk(),
          exec.say('DONE: a.txt created'),
          judge('execution'),
          exec.say('FAILED: b.txt could not be written'),
          judge('execution', {
            replan_needed: true,
            confidence: 0.9,
            reasoning: 'write_file cannot create b.txt; the remaining actions need another way.',
            replan_type: 'partial_replan',
            replan_level: 2,
            target_phase: 'execution',
            issues_found: ['b.txt write failed'],
            error_classification: 'persistent',
            recovery_strategy: 'Create b.txt with apply_patch',
          }),
          json(
            'planning',
            planWith([
              action('task_2', 'Create b.txt with a patch', 'apply_patch'),
              action('task_3', 'Create c.txt'),
            ]),
          ),
          judge('action_sequence'),
          exec.say('DONE: b.txt created'),
          judge('execution'),
          exec.say('DONE: c.txt created'),
          judge('execution'),
          ...finish,
        ],
      },
      cleanups,
    );
    run.llm.assertAllUsed();
    expect(run.outcome.state).to.equal('COMPLETE');
    const replanCall = purposes(run.llm).indexOf('planning', 1);
    expect(userText(run.llm, replanCall))
      .to.contain(
        'Replan decided after execution, level 2 (replan the remaining actions): write_file cannot',
      )
      .and.contain('Create b.txt with apply_patch')
      .and.contain('Actions already carried out');
    const note = progressNote(target);
    const current = currentPlan(note);
    // the model's reason, without the planner's internal wording (level numbers, phase ids)
    expect(current).to.contain(
      '🔁 Plan revised once, last because: write_file cannot create b.txt; the remaining actions need another way.',
    );
    expect(current).to.not.match(/level \d|Replan decided/);
    expect(current).to.contain('- [x] Create a.txt');
    expect(current).to.contain('- [x] Create c.txt');
    expect(note).to.contain('#### Earlier plans');
    // the decision is a line of the progress note's history, not a note of its own
    expect(notesOf(target, 'mr-agent:replan')).to.have.length(0);
    expect(note).to.contain(
      'started at execution: re-plan the remaining steps — write_file cannot create b.txt',
    );
    const executed = (await run.decisions()).filter((d) => d.executed);
    expect(executed.map((d) => d.result)).to.deep.equal(['pending', 'success']);
    expect(executed[1]!.plan_after).to.be.an('object');
  });

  it('F5 a level-4 re-decomposition starts a fresh checklist with the old one folded', async () => {
    const target = new RecordingTarget();
    const run = await runWithReplanning(
      {
        target,
        steps: [
          json('planning', threeFiles),
          ...planningOk(),
          exec.say('DONE: a.txt created'),
          judge('execution', {
            replan_needed: true,
            confidence: 0.85,
            reasoning: 'a.txt shows the files belong in docs/; the subtasks no longer hold.',
            replan_type: 'full_replan',
            replan_level: 4,
            target_phase: 'task_decomposition',
          }),
          json(
            'planning',
            planWith([
              action('task_1', 'Create docs/b.txt'),
              action('task_2', 'Create docs/c.txt'),
            ]),
          ),
          judge('task_decomposition'),
          judge('action_sequence'),
          exec.say('DONE'),
          judge('execution'),
          exec.say('DONE'),
          judge('execution'),
          ...finish,
        ],
      },
      cleanups,
    );
    run.llm.assertAllUsed();
    expect(run.outcome.state).to.equal('COMPLETE');
    const note = progressNote(target);
    const current = currentPlan(note);
    expect(current).to.contain('🔁 Plan revised once');
    expect(current).not.to.contain('Create a.txt');
    expect(current).to.contain('- [x] Create docs/b.txt\n- [x] Create docs/c.txt');
    const history = note.split('<details>')[1]!;
    expect(history).to.contain('Original plan');
    expect(history).to.contain('- [x] Create a.txt');
    expect(history).to.contain('the subtasks no longer hold');
    expect(run.outcome.checklist.map((i) => i.label)).to.deep.equal([
      'task_1: Create docs/b.txt',
      'task_2: Create docs/c.txt',
    ]);
  });

  it('F3 §9.2/§13.3 the same trigger a third time is forced to skip, and the model is asked for another approach', async () => {
    const target = new RecordingTarget();
    const retry = {
      replan_needed: true,
      confidence: 0.95,
      reasoning: 'The network timed out; try again.',
      replan_type: 'retry',
      replan_level: 1,
      error_classification: 'transient',
    };
    const run = await runWithReplanning(
      {
        target,
        sets: ['planning.reflection.trigger_on_error=false'],
        steps: [
          json('planning', planWith([action('task_1', 'Download the schema')])),
          ...planningOk(),
          exec.say('FAILED: timeout'),
          judge('execution', retry),
          exec.say('FAILED: timeout'),
          judge('execution', retry),
          exec.say('FAILED: timeout'),
          judge('execution', retry),
          json('replan.escalation', { choice: 'continue', reasoning: 'Go on without it.' }),
          ...finish,
        ],
      },
      cleanups,
    );
    run.llm.assertAllUsed();
    expect(run.outcome.actions.map((a) => `${a.key}:${a.status}`)).to.deep.equal([
      'A1:failure',
      'A2:failure',
      'A3:failure',
    ]);
    const escalation = userText(run.llm, purposes(run.llm).indexOf('replan.escalation'));
    expect(escalation).to.contain('already carried out 2 times');
    expect(escalation).to.contain('`replan_remaining_actions`').and.not.contain('`retry_action`');
    const decisions = await run.decisions();
    const blocked = decisions.find((d) => d.override_reason?.includes('same_trigger_max_count'));
    expect(blocked).to.include({ executed: false, result: 'skipped', phase: 'execution' });
    expect(notesOf(target, 'mr-agent:replan')).to.have.length(0);
    expect(progressNote(target)).to.contain(
      'was not carried out: the same replan already ran 2 times (`planning.replanning.global.same_trigger_max_count`); the run went on with the current plan',
    );
  });

  it('F4 a clarification answered in time: the run plans again with the answer', async () => {
    const target = new RecordingTarget();
    let answers: ScriptedAnswers | undefined;
    const run = await runWithReplanning(
      {
        target,
        answers: (deps) => {
          const clock = deps.clock as FakeClock;
          answers = new ScriptedAnswers(() => clock.now());
          answers.add('Put it in greeting.txt, please.', { at: clock.now() + 10 * 60_000 });
          answers.add('Use hello.md', { at: clock.now(), allowed: false, username: 'guest' });
          return answers;
        },
        steps: [
          json('planning', planWith([action('task_1', 'Write the greeting')])),
          judge('goal_understanding', {
            replan_needed: true,
            confidence: 0.85,
            reasoning: 'The request does not say where the greeting goes.',
            replan_type: 'clarification_request',
            clarification_needed: true,
            clarification_questions: ['Which file should hold the greeting?'],
            assumptions_to_make: ['The greeting goes into README.md'],
          }),
          json('planning', planWith([action('task_1', 'Write greeting.txt')])),
          ...planningOk(),
          exec.say('DONE'),
          judge('execution'),
          ...finish,
        ],
      },
      cleanups,
    );
    run.llm.assertAllUsed();
    expect(run.outcome.state).to.equal('COMPLETE');
    expect(userText(run.llm, 2))
      .to.contain('Which file should hold the greeting?')
      .and.contain('@dana: Put it in greeting.txt, please.')
      .and.not.contain('hello.md');
    const sleeps = (run.deps.clock as FakeClock).sleeps.reduce((a, b) => a + b, 0);
    expect(sleeps)
      .to.be.at.least(10 * 60_000)
      .and.below(11 * 60_000);
    const [question] = notesOf(target, 'mr-agent:clarification');
    expect(question).to.contain('1. **Which file should hold the greeting?**');
    expect(question).to.contain('The greeting goes into README.md');
    expect(question).to.contain('state=answered').and.contain('### ✅ Answered by @dana');
    expect(question).to.not.contain('before I continue');
  });

  it('F4 a clarification nobody answers: after auto_assume_timeout_minutes the run goes on with the assumptions', async () => {
    const target = new RecordingTarget();
    const run = await runWithReplanning(
      {
        target,
        sets: ['planning.replanning.goal_understanding.auto_assume_timeout_minutes=30'],
        answers: (deps) => new ScriptedAnswers(() => deps.clock.now()),
        steps: [
          json('planning', planWith([action('task_1', 'Write the greeting')])),
          judge('goal_understanding', {
            replan_needed: true,
            confidence: 0.8,
            reasoning: 'The target file is not named.',
            clarification_needed: true,
            clarification_questions: ['Which file should hold the greeting?'],
            assumptions_to_make: ['The greeting goes into README.md'],
          }),
          json('planning', planWith([action('task_1', 'Write the greeting into README.md')])),
          ...planningOk(),
          exec.say('DONE'),
          judge('execution'),
          ...finish,
        ],
      },
      cleanups,
    );
    run.llm.assertAllUsed();
    expect(run.outcome.state).to.equal('COMPLETE');
    // the wait for an answer, plus at most a few progress-note edit intervals
    // (the publisher waits out its interval on the same clock when it flushes)
    const sleeps = (run.deps.clock as FakeClock).sleeps.reduce((a, b) => a + b, 0);
    expect(sleeps).to.be.within(30 * 60_000, 30 * 60_000 + 5_000);
    expect(userText(run.llm, 2))
      .to.contain('Nobody answered in time')
      .and.contain('- The greeting goes into README.md');
    const [question] = notesOf(target, 'mr-agent:clarification');
    expect(question).to.contain('state=assumed').and.contain('⏭️ No answer within 30m');
  });

  it('F4 with timeout 0 the run stops awaiting an answer; a reply in the thread resumes it with the same counters', async () => {
    const target = new RecordingTarget();
    const sets = ['planning.replanning.goal_understanding.auto_assume_timeout_minutes=0'];
    const ask = judge('goal_understanding', {
      replan_needed: true,
      confidence: 0.9,
      reasoning: 'The target file is not named.',
      clarification_needed: true,
      clarification_questions: ['Which file should hold the greeting?'],
      assumptions_to_make: ['The greeting goes into README.md'],
    });
    const first = await runWithReplanning(
      {
        target,
        sets,
        issueId: '12!42',
        answers: (deps) => new ScriptedAnswers(() => deps.clock.now()),
        steps: [json('planning', planWith([action('task_1', 'Write the greeting')])), ask],
      },
      cleanups,
    );
    first.llm.assertAllUsed();
    expect(first.outcome).to.include({ state: 'FAILED', reason: 'clarification_needed' });
    expect(notesOf(target, 'before I continue')).to.have.length(1);
    expect(progressNote(target)).to.contain('### ❓ Waiting for your answer');
    const paused = await first.stateFile();
    expect(paused).to.deep.include({ status: 'awaiting_answer' });
    expect(paused.counters).to.deep.include({ total: 1, buckets: { clarifications: 1 } });
    const questionId = (paused.open_question as { note_id: string }).note_id;

    const second = await runWithReplanning(
      {
        target,
        sets,
        dir: first.dir,
        issueId: '12!42',
        answers: (deps) => {
          const answers = new ScriptedAnswers(() => deps.clock.now());
          answers.add('greeting.txt');
          return answers;
        },
        steps: [
          json('planning', planWith([action('task_1', 'Write the greeting')])),
          json('planning', planWith([action('task_1', 'Write greeting.txt')])),
          ...planningOk(),
          exec.say('DONE'),
          judge('execution'),
          ...finish,
        ],
      },
      cleanups,
    );
    second.llm.assertAllUsed();
    expect(second.outcome.state).to.equal('COMPLETE');
    expect(userText(second.llm, 1)).to.contain('@dana: greeting.txt');
    const reply = target.calls.find((c) => c.replyTo === questionId);
    expect(reply?.body).to.contain('✅ Answered by @dana').and.contain('state=answered');
    const resumed = await second.stateFile();
    expect(resumed).to.deep.include({ status: 'finished' });
    expect(resumed.counters).to.deep.include({ buckets: { clarifications: 1 } });
  });

  it('F3 §9.1 after 10 replans in total no further replan is carried out or requested', async () => {
    const target = new RecordingTarget();
    const retry = judge('execution', {
      replan_needed: true,
      confidence: 0.9,
      reasoning: 'Flaky; try again.',
      replan_type: 'retry',
      replan_level: 1,
    });
    const attempts = Array.from({ length: 11 }, () => [exec.say('FAILED: flaky'), retry]).flat();
    const run = await runWithReplanning(
      {
        target,
        sets: [
          'planning.reflection.trigger_on_error=false',
          'planning.replanning.execution.max_action_retries=50',
          'planning.replanning.global.same_trigger_max_count=50',
        ],
        steps: [
          json('planning', planWith([action('task_1', 'Call the flaky service')])),
          ...planningOk(),
          ...attempts,
          json('completion', assessment(true)),
        ],
      },
      cleanups,
    );
    run.llm.assertAllUsed();
    expect(run.outcome.state).to.equal('COMPLETE');
    expect(run.outcome.actions).to.have.length(11);
    const decisions = await run.decisions();
    const carriedOut = decisions.filter((d) => d.executed && d.result === 'pending');
    expect(carriedOut).to.have.length(10);
    const blocked = decisions.filter((d) => d.override_reason?.includes('max_total_replans = 10'));
    expect(blocked).to.have.length(1);
    expect(purposes(run.llm).at(-1)).to.equal('completion');
    // one note per run, however long: the retries live in the progress note
    expect(notesOf(target, 'mr-agent:replan')).to.have.length(0);
    expect(target.notes.size, [...target.notes.values()].join('\n----\n')).to.be.at.most(2);
    const note = progressNote(target);
    const top = currentPlan(note);
    expect(top).to.contain('- [ ] Call the flaky service — ❌ *failed 11×*');
    expect(top.match(/Call the flaky service/g)).to.have.length(1);
    expect(top)
      .to.not.contain('Plan revised')
      .and.not.match(/task_\d|Retrying/);
    expect(note).to.not.contain('```mermaid');
    // done over a failed step says why
    expect(top).to.contain('⚠️ 1 step failed, but the final check found the request done');
    expect(note).to.contain(
      'was not carried out: the limit on all replans is reached (10 of 10, `planning.replanning.global.max_total_replans`)',
    );
    expect((await run.stateFile()).counters).to.deep.include({ total: 10 });
  });
});
