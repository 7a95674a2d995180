import { expect } from 'chai';
import { directiveFor, triggerKey } from '../../src/phases/replan/directives.ts';
import { resolveDecision } from '../../src/phases/replan/levels.ts';
import { decisionSchemaFor, type ReplanDecision } from '../../src/phases/replan/schema.ts';
import type { ReplanCheckpoint, ReplanPoint } from '../../src/core/hooks.ts';
import { action, planWith } from '../support/plans.ts';
import { decision } from './support.ts';

function parsed(point: ReplanPoint, fields: Record<string, unknown>): ReplanDecision {
  return decisionSchemaFor(point).parse(decision({ replan_needed: true, ...fields }))
    .replan_decision as ReplanDecision;
}

describe('replan: levels and restart points (seed 003 §2.6, §7.4)', () => {
  const cases: Array<[ReplanPoint, Record<string, unknown>, string]> = [
    ['execution', { replan_level: 1 }, 'L1 action_retries'],
    ['execution', { replan_type: 'retry' }, 'L1 action_retries'],
    ['execution', { replan_type: 'partial_replan' }, 'L2 partial_replans'],
    ['execution', { replan_type: 'full_replan' }, 'L4 redecompositions'],
    ['execution', { replan_level: 3 }, 'L3 regenerations'],
    ['execution', { replan_level: 5 }, 'L5 clarifications'],
    ['execution', { target_phase: 'task_decomposition' }, 'L4 redecompositions'],
    ['execution', { target_phase: 'Action Sequence Generation' }, 'L3 regenerations'],
    ['execution', {}, 'L2 partial_replans'],
    ['execution', { replan_level: 2, replan_type: 'task_redecomposition' }, 'L2 partial_replans'],
    ['final_evaluation', { replan_type: 'plan_revision' }, 'L2 plan_revisions'],
    ['final_evaluation', { replan_level: 1 }, 'L2 plan_revisions'],
    ['final_evaluation', { replan_level: 4 }, 'L4 redecompositions'],
    ['action_sequence', { replan_type: 'action_regeneration' }, 'L3 regenerations'],
    ['action_sequence', { replan_level: 2 }, 'L3 regenerations'],
    ['task_decomposition', { replan_type: 'task_redecomposition' }, 'L4 redecompositions'],
    ['goal_understanding', { replan_type: 'goal_revision' }, 'L5 clarifications'],
    ['goal_understanding', {}, 'L5 clarifications'],
  ];
  for (const [point, fields, expected] of cases) {
    it(`${point} ${JSON.stringify(fields)} → ${expected}`, () => {
      const resolved = resolveDecision(point, parsed(point, fields));
      expect(resolved.kind === 'replan' && `L${resolved.level} ${resolved.bucket}`).to.equal(
        expected,
      );
    });
  }

  it('no replan needed → none; a clarification with questions → clarify', () => {
    const none = decisionSchemaFor('execution').parse(decision()).replan_decision;
    expect(resolveDecision('execution', none as ReplanDecision)).to.deep.equal({ kind: 'none' });
    const ask = parsed('goal_understanding', {
      replan_type: 'clarification_request',
      clarification_needed: true,
      clarification_questions: ['Which branch?'],
    });
    expect(resolveDecision('goal_understanding', ask).kind).to.equal('clarify');
  });

  it('§7.4 levels 1–5 become retry, then restarts at remaining actions, action sequence, decomposition, goal', () => {
    const d = parsed('execution', { reasoning: 'Because.' });
    const kinds = ([1, 2, 3, 4, 5] as const).map((level) => {
      const directive = directiveFor('execution', level, d);
      return directive.kind === 'replan' ? directive.from : directive.kind;
    });
    expect(kinds).to.deep.equal([
      'retry_action',
      'remaining_actions',
      'action_sequence',
      'task_decomposition',
      'goal_understanding',
    ]);
  });

  it('the reason carries the phase extras for the planner', () => {
    const d = parsed('action_sequence', {
      reasoning: 'A tool is missing.',
      unavailable_tools: ['deploy_tool'],
      alternative_tools: ['run_command'],
    });
    const directive = directiveFor('action_sequence', 3, d);
    expect(directive.kind === 'replan' && directive.reason)
      .to.contain('level 3 (regenerate the action sequence): A tool is missing.')
      .and.contain('Unavailable tools:\n- deploy_tool')
      .and.contain('Alternative tools:\n- run_command');
  });

  it('trigger keys name the checkpoint, the action and the level', () => {
    const record = {
      key: 'A3',
      action: action('task_2', 'Patch it'),
      status: 'failure' as const,
      summary: 'x',
      toolCalls: [],
      turns: 1,
      startedAt: 0,
      finishedAt: 0,
    };
    const checkpoint: ReplanCheckpoint = {
      point: 'execution',
      plan: planWith([action('task_2', 'Patch it')]),
      action: record,
      remaining: [],
    };
    expect(
      triggerKey(checkpoint, { kind: 'replan', level: 2, bucket: 'partial_replans' }),
    ).to.equal('execution:task_2:L2');
    expect(
      triggerKey(
        { point: 'goal_understanding', plan: checkpoint.plan },
        { kind: 'clarify', bucket: 'clarifications' },
      ),
    ).to.equal('goal_understanding:clarify');
  });
});
