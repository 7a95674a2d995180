import { expect } from 'chai';
import { decisionSchemaFor } from '../../src/phases/replan/schema.ts';
import { decision } from './support.ts';

describe('replan: decision schema (seed 003 §2.4, §4.4–§8.4)', () => {
  it('F3 the §2.4 decision parses; lists default to empty', () => {
    const parsed = decisionSchemaFor('execution').parse({
      replan_decision: { replan_needed: true, confidence: 0.85, reasoning: 'Broken.' },
    });
    expect(parsed.replan_decision).to.deep.include({
      replan_type: 'none',
      issues_found: [],
      recommended_actions: [],
      clarification_needed: false,
      clarification_questions: [],
      affected_actions: [],
    });
  });

  it('the envelope may be left out by the model', () => {
    const parsed = decisionSchemaFor('goal_understanding').parse({
      replan_needed: false,
      confidence: 0.9,
      reasoning: 'Clear.',
    });
    expect(parsed.replan_decision.replan_needed).to.equal(false);
  });

  it('each phase keeps its own extra fields', () => {
    const extras: Array<[Parameters<typeof decisionSchemaFor>[0], Record<string, unknown>]> = [
      ['goal_understanding', { assumptions_to_make: ['Use Node 24'] }],
      [
        'task_decomposition',
        {
          missing_steps: ['tests'],
          recommended_granularity: 'per file',
          scope_adjustment: 'smaller',
        },
      ],
      [
        'action_sequence',
        {
          unavailable_tools: ['deploy'],
          alternative_tools: ['run_command'],
          dependency_issues: ['task_2 before task_1'],
          plan_adjustments: ['swap them'],
        },
      ],
      [
        'execution',
        {
          error_classification: 'transient',
          recovery_strategy: 'retry',
          affected_actions: ['task_3'],
        },
      ],
      [
        'final_evaluation',
        {
          evaluation_result: 'partial_success',
          achievement_rate: 60,
          issues_identified: ['docs missing'],
          additional_actions: ['write docs'],
          revision_scope: 'minor',
        },
      ],
    ];
    for (const [point, fields] of extras) {
      const parsed = decisionSchemaFor(point).parse(decision(fields));
      expect(parsed.replan_decision, point).to.deep.include(fields);
    }
  });

  it('extras of another phase are dropped', () => {
    const parsed = decisionSchemaFor('goal_understanding').parse(
      decision({ achievement_rate: 50 }),
    );
    expect(parsed.replan_decision).not.to.have.property('achievement_rate');
  });

  const invalid: Array<[string, Record<string, unknown>]> = [
    ['confidence above 1', { confidence: 1.2 }],
    ['an unknown replan type', { replan_type: 'rewrite_everything' }],
    ['a level outside 1–5', { replan_level: 7 }],
    ['a clarification without questions', { clarification_needed: true }],
    ['an unknown error class', { error_classification: 'bad' }],
  ];
  for (const [what, fields] of invalid) {
    it(`rejects ${what} (the message goes back to the model)`, () => {
      const point = 'error_classification' in fields ? 'execution' : 'goal_understanding';
      expect(decisionSchemaFor(point).safeParse(decision(fields)).success).to.equal(false);
    });
  }
});
