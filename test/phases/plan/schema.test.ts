import { expect } from 'chai';
import { z } from 'zod';
import { planReplySchema, toPlanningResult } from '../../../src/core/plan.ts';
import { orderSteps } from '../../../src/core/plan-steps.ts';
import { action, planWith } from '../../support/plans.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- mutating parsed JSON freely
type Loose = Record<string, any>;

function problems(value: unknown, maxSubtasks = 100): string {
  const result = planReplySchema(maxSubtasks).safeParse(value);
  return result.success ? '' : z.prettifyError(result.error);
}

describe('plan: schema (D1) and ordering', () => {
  const valid = planWith([action('task_1', 'A'), action('task_2', 'B')]);

  it('D1 accepts the full plan shape and narrows it to a plan', () => {
    const parsed = planReplySchema(100).parse(valid);
    expect(toPlanningResult(parsed)).to.deep.equal({ kind: 'plan', plan: valid });
  });

  const missing: Array<[string, (p: Loose) => void, RegExp]> = [
    [
      'goal_understanding.context',
      (p) => delete p.goal_understanding.context,
      /goal_understanding\.context/,
    ],
    [
      'success_criteria empty',
      (p) => (p.goal_understanding.success_criteria = []),
      /success_criteria/,
    ],
    [
      'subtasks[].estimated_complexity',
      (p) => (p.task_decomposition.subtasks[0].estimated_complexity = 'huge'),
      /estimated_complexity/,
    ],
    [
      'subtasks[].required_tools',
      (p) => delete p.task_decomposition.subtasks[0].required_tools,
      /required_tools/,
    ],
    [
      'actions[].fallback_strategy',
      (p) => delete p.action_plan.actions[0].fallback_strategy,
      /fallback_strategy/,
    ],
    [
      'selected_environment.verification[].expected_output',
      (p) => delete p.selected_environment.verification[0].expected_output,
      /selected_environment\.verification\[0\]\.expected_output|selected_environment\.verification\.0\.expected_output/,
    ],
    ['action_plan', (p) => delete p.action_plan, /→ at action_plan$/m],
    ['comment', (p) => delete p.comment, /comment/],
  ];
  for (const [label, mutate, message] of missing) {
    it(`D1 rejects a plan without ${label}, naming the field for the re-ask`, () => {
      const plan = structuredClone(valid) as Loose;
      mutate(plan);
      expect(problems(plan)).to.match(message);
    });
  }

  it('D3 enforces max_subtasks with a message the model can act on', () => {
    expect(problems(valid, 1)).to.contain('has 2 subtasks; at most 1 are allowed (max_subtasks)');
  });

  it('rejects unknown subtask ids in dependencies, execution_order and actions, and duplicate ids', () => {
    const plan = structuredClone(valid);
    plan.task_decomposition.subtasks[1]!.dependencies = ['task_9'];
    plan.action_plan.execution_order.push('task_7');
    plan.action_plan.actions[0]!.task_id = 'task_8';
    plan.task_decomposition.subtasks.push({ ...plan.task_decomposition.subtasks[0]! });
    const text = problems(plan);
    expect(text).to.contain('unknown subtask id task_9');
    expect(text).to.contain('unknown subtask id task_7');
    expect(text).to.contain('unknown subtask id task_8');
    expect(text).to.contain('duplicate id task_1');
  });

  it('seed 001 §10.1.1 accepts an unclear_goal error instead of a plan', () => {
    const reply = planReplySchema(100).parse({
      error: { type: 'unclear_goal', message: 'unclear', clarification_needed: ['Which file?'] },
      comment: 'Please clarify',
    });
    expect(toPlanningResult(reply)).to.deep.include({ kind: 'clarification' });
  });

  it('drops unknown keys from the model instead of failing', () => {
    const parsed = planReplySchema(100).parse({ ...valid, extra: 'ignored' });
    expect(parsed).not.to.have.property('extra');
  });

  it('orders actions by execution_order, keeping listed order within a subtask', () => {
    let n = 0;
    const steps = orderSteps(
      {
        execution_order: ['task_2', 'task_1'],
        actions: [
          action('task_1', 'one-a'),
          action('task_2', 'two'),
          action('task_1', 'one-b'),
          action('task_3', 'three'),
        ],
      },
      () => ++n,
    );
    expect(steps.map((s) => `${s.key}:${s.action.purpose}`)).to.deep.equal([
      'A1:two',
      'A2:one-a',
      'A3:one-b',
      'A4:three',
    ]);
  });
});
