import type { Plan, PlannedAction } from '../../src/core/plan.ts';

/** A planned action with defaults, for scripted replies. */
export function action(taskId: string, purpose: string, tool = 'write_file'): PlannedAction {
  return {
    task_id: taskId,
    action_type: 'tool_call',
    tool,
    purpose,
    expected_outcome: `${purpose} is done`,
    fallback_strategy: `try another way to ${purpose.toLowerCase()}`,
  };
}

/** A valid plan whose subtasks are the distinct task ids of `actions`. */
export function planWith(actions: PlannedAction[], criteria = ['The change is made']): Plan {
  const ids = [...new Set(actions.map((a) => a.task_id))];
  return {
    phase: 'planning',
    goal_understanding: {
      main_objective: 'Make the requested change',
      success_criteria: criteria,
      constraints: ['Keep the public API'],
      context: 'A small test repository',
    },
    task_decomposition: {
      reasoning: 'One subtask per change, in order.',
      subtasks: ids.map((id, i) => ({
        id,
        description: `Subtask ${id}`,
        dependencies: i === 0 ? [] : [ids[i - 1]!],
        estimated_complexity: 'low',
        required_tools: ['write_file'],
      })),
    },
    action_plan: { execution_order: ids, actions },
    selected_environment: {
      name: 'node',
      reason: 'package.json exists',
      detected_files: ['package.json'],
      setup_commands: [],
      verification: [{ command: 'node -e \'console.log("OK")\'', expected_output: 'OK' }],
    },
    comment: 'Plan completed. Starting execution.',
  };
}

export function reflection(
  status: 'success' | 'failure' | 'partial',
  revision?: { reason: string; actions: PlannedAction[] },
) {
  return {
    phase: 'reflection',
    reflection: {
      action_evaluated: 'the last action',
      status,
      evaluation: status === 'success' ? 'Went as planned.' : 'The action did not work.',
      alignment_with_plan: 'aligned',
      issues_identified: status === 'success' ? [] : ['the file was missing'],
      plan_revision_needed: revision !== undefined,
    },
    plan_revision: revision
      ? {
          reason: revision.reason,
          changes: [{ type: 'modify_action', details: revision.reason }],
          updated_action_plan: {
            execution_order: [...new Set(revision.actions.map((a) => a.task_id))],
            actions: revision.actions,
          },
        }
      : null,
    comment: revision ? 'Plan revised.' : 'Continuing.',
  };
}

export function assessment(satisfied: boolean, passed: string[] = satisfied ? ['AC-1'] : []) {
  return {
    type: 'completion_assessment',
    summary: satisfied ? 'All criteria are met.' : 'Some criteria are still open.',
    details: { passed_criteria: passed, remaining_risks: satisfied ? [] : ['AC-1 is open'] },
    all_criteria_satisfied: satisfied,
  };
}
