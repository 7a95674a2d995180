import { expect } from 'chai';
import type {
  ReplanCheckpoint,
  ReplanDirective,
  ReplanHook,
  ReviewHook,
  ReviewSubject,
  ReviewVerdict,
} from '../../src/core/hooks.ts';
import { exec, json } from '../support/script.ts';
import { action, assessment, planWith, reflection } from '../support/plans.ts';
import { runScenario, userMessage } from './scenario.ts';

/** A replan hook answering from a script keyed by checkpoint; records every checkpoint. */
function scriptedReplan(answers: Partial<Record<string, ReplanDirective[]>>) {
  const seen: string[] = [];
  const hook: ReplanHook = {
    decide: async (checkpoint: ReplanCheckpoint) => {
      seen.push(checkpoint.point);
      return answers[checkpoint.point]?.shift() ?? { kind: 'continue' };
    },
  };
  return { hook, seen };
}

function scriptedReview(verdicts: ReviewVerdict[]) {
  const seen: ReviewSubject[] = [];
  const hook: ReviewHook = {
    review: async (subject) => {
      seen.push(subject);
      return verdicts.shift() ?? { result: 'PASS', feedback: '' };
    },
  };
  return { hook, seen };
}

const onePlan = planWith([action('task_1', 'Do the thing')]);
const noInterval = ['planning.reflection.trigger_interval=0'];

describe('run: replan and review seams (seed 003, seed 004)', () => {
  it('asks the replan hook after goal understanding, decomposition, action sequence, each action and the final evaluation', async () => {
    const replan = scriptedReplan({});
    const { outcome } = await runScenario({
      sets: noInterval,
      overrides: { hooks: { replan: replan.hook } },
      steps: [
        json('planning', planWith([action('task_1', 'One'), action('task_2', 'Two')])),
        exec.say('DONE: one'),
        exec.say('DONE: two'),
        json('completion', assessment(true)),
      ],
    });
    expect(outcome.state).to.equal('COMPLETE');
    expect(replan.seen).to.deep.equal([
      'goal_understanding',
      'task_decomposition',
      'action_sequence',
      'execution',
      'execution',
      'final_evaluation',
    ]);
  });

  it('level 1: retry_action runs the same action again under a new key', async () => {
    const replan = scriptedReplan({
      execution: [{ kind: 'retry_action', reason: 'flaky network' }],
    });
    const { outcome } = await runScenario({
      sets: noInterval,
      overrides: { hooks: { replan: replan.hook } },
      steps: [
        json('planning', onePlan),
        exec.say('FAILED: timeout'),
        exec.say('DONE: worked the second time'),
        json('completion', assessment(true)),
      ],
    });
    expect(outcome.state).to.equal('COMPLETE');
    expect(outcome.actions.map((a) => `${a.key}:${a.status}`)).to.deep.equal([
      'A1:failure',
      'A2:success',
    ]);
  });

  it('a replan at the action-sequence checkpoint plans again with the reason as feedback', async () => {
    const replan = scriptedReplan({
      action_sequence: [
        { kind: 'replan', from: 'action_sequence', reason: 'tests are missing from the plan' },
      ],
    });
    const { outcome, llm } = await runScenario({
      sets: noInterval,
      overrides: { hooks: { replan: replan.hook } },
      steps: [
        json('planning', onePlan),
        json('planning', planWith([action('task_1', 'Do it'), action('task_2', 'Test it')])),
        exec.say('DONE'),
        exec.say('DONE'),
        json('completion', assessment(true)),
      ],
    });
    expect(outcome.actions).to.have.length(2);
    expect(userMessage(llm, 1)).to.contain('tests are missing from the plan');
  });

  it('a replan during execution keeps executed actions and replaces the rest', async () => {
    const replan = scriptedReplan({
      execution: [{ kind: 'replan', from: 'remaining_actions', reason: 'the API changed' }],
    });
    const { outcome, llm } = await runScenario({
      sets: noInterval,
      overrides: { hooks: { replan: replan.hook } },
      steps: [
        json('planning', planWith([action('task_1', 'Old one'), action('task_2', 'Old two')])),
        exec.say('DONE: old one'),
        json('planning', planWith([action('task_3', 'New three')])),
        exec.say('DONE: new three'),
        json('completion', assessment(true)),
      ],
    });
    expect(outcome.checklist.map((i) => `${i.label}:${i.status}`)).to.deep.equal([
      'task_1: Old one:done',
      'task_3: New three:done',
    ]);
    expect(userMessage(llm, 2))
      .to.contain('Actions already carried out')
      .and.contain('the API changed');
  });

  it('clarify ends the run waiting for an answer', async () => {
    const replan = scriptedReplan({
      goal_understanding: [{ kind: 'clarify', questions: ['Which branch?'], assumptions: [] }],
    });
    const { outcome } = await runScenario({
      overrides: { hooks: { replan: replan.hook } },
      steps: [json('planning', onePlan)],
    });
    expect(outcome).to.include({ state: 'FAILED', reason: 'clarification_needed' });
    expect(outcome.clarification?.clarification_needed).to.deep.equal(['Which branch?']);
  });

  it('G1 a planning FAIL verdict leads to a revised plan with the feedback', async () => {
    const review = scriptedReview([{ result: 'FAIL', feedback: 'Add a test step.' }]);
    const { outcome, llm } = await runScenario({
      sets: noInterval,
      overrides: { hooks: { review: review.hook } },
      steps: [
        json('planning', onePlan),
        json('planning', planWith([action('task_1', 'Do it'), action('task_2', 'Test it')])),
        exec.say('DONE'),
        exec.say('DONE'),
        json('completion', assessment(true)),
      ],
    });
    expect(outcome.state).to.equal('COMPLETE');
    expect(review.seen.map((s) => `${s.phase}#${s.attempt}`)).to.deep.equal([
      'planning#0',
      'planning#1',
      'execution#0',
    ]);
    expect(userMessage(llm, 1)).to.contain('Add a test step.');
  });

  it('G1 an execution FAIL verdict becomes new actions through a reflection', async () => {
    const review = scriptedReview([
      { result: 'PASS', feedback: '' },
      { result: 'FAIL', feedback: 'The README was not updated.' },
    ]);
    const { outcome, llm } = await runScenario({
      sets: noInterval,
      overrides: { hooks: { review: review.hook } },
      steps: [
        json('planning', onePlan),
        exec.say('DONE'),
        json(
          'reflection',
          reflection('partial', { reason: 'README', actions: [action('task_1', 'Update README')] }),
        ),
        exec.say('DONE: README updated'),
        json('completion', assessment(true)),
      ],
    });
    expect(outcome).to.include({ state: 'COMPLETE', revisions: 0 });
    expect(userMessage(llm, 2))
      .to.contain('Reflection trigger: review')
      .and.contain('The README was not updated.');
  });

  it('G1 a phase still FAIL after review.max_revisions fails the run and skips later phases', async () => {
    const fail: ReviewVerdict = { result: 'FAIL', feedback: 'Still wrong.' };
    const review = scriptedReview([fail, fail]);
    const { outcome, deps } = await runScenario({
      sets: ['review.max_revisions=1'],
      overrides: { hooks: { review: review.hook } },
      steps: [json('planning', onePlan), json('planning', onePlan)],
    });
    expect(outcome).to.include({ state: 'FAILED', reason: 'phase_failed', exitCode: 1 });
    expect(outcome.summary).to.contain('Skipping subsequent phases due to failed phase: planning');
    expect(deps.reporter.phases()).not.to.include('execution:running');
  });

  it('review.enabled=false never calls the review hook', async () => {
    const review = scriptedReview([{ result: 'FAIL', feedback: 'x' }]);
    const { outcome } = await runScenario({
      sets: [...noInterval, 'review.enabled=false'],
      overrides: { hooks: { review: review.hook } },
      steps: [json('planning', onePlan), exec.say('DONE'), json('completion', assessment(true))],
    });
    expect(outcome.state).to.equal('COMPLETE');
    expect(review.seen).to.have.length(0);
  });
});
