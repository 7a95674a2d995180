import { expect } from 'chai';
import { exec, json } from '../support/script.ts';
import { action, assessment, planWith } from '../support/plans.ts';
import { RecordingTarget } from '../support/recording-target.ts';
import {
  judge,
  notesOf,
  planningOk,
  runWithReplanning,
  ScriptedAnswers,
  userText,
} from './support.ts';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const finish = [json('completion', assessment(true)), judge('final_evaluation')];

/** The planner's reply when the goal is unclear (seed 001 §10.1.1). */
function unclearGoal(question: string) {
  return {
    phase: 'planning',
    error: {
      type: 'unclear_goal',
      message: 'The request names no file.',
      clarification_needed: [question],
    },
    comment: 'Please clarify.',
  };
}

describe('replan: the planner finds the goal unclear (seed 001 §10.1.1, SPEC D4, F4)', () => {
  it('D4/F4 the planner finding the goal unclear: its questions are asked, and the answer plans again', async () => {
    const target = new RecordingTarget();
    const unclear = unclearGoal('Which file should hold the greeting?');
    const run = await runWithReplanning(
      {
        target,
        answers: (deps) => {
          const answers = new ScriptedAnswers(() => deps.clock.now());
          answers.add('greeting.txt', { at: deps.clock.now() + 60_000 });
          return answers;
        },
        steps: [
          json('planning', unclear),
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
    expect(userText(run.llm, 1))
      .to.contain('1. Which file should hold the greeting?')
      .and.contain('- @dana: greeting.txt');
    const [question] = notesOf(target, 'mr-agent:clarification');
    expect(question).to.contain('The request names no file.').and.contain('state=answered');
    const decisions = await run.decisions();
    expect(decisions[0]).to.deep.include({ phase: 'goal_understanding', executed: true });
    expect(decisions[0]!.llm_decision).to.deep.include({ type: 'unclear_goal' });
  });

  it('D4/F4 an unclear goal with timeout 0 stops awaiting an answer with one ❓ note', async () => {
    const target = new RecordingTarget();
    const run = await runWithReplanning(
      {
        target,
        sets: ['planning.replanning.goal_understanding.auto_assume_timeout_minutes=0'],
        steps: [json('planning', unclearGoal('Which file?'))],
      },
      cleanups,
    );
    expect(run.outcome).to.include({ state: 'FAILED', reason: 'clarification_needed' });
    expect(notesOf(target, 'before I continue')).to.have.length(1);
    expect(await run.stateFile()).to.deep.include({ status: 'awaiting_answer' });
  });
});
