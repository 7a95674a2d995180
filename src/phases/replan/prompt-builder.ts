/**
 * Builds the decision request of each checkpoint: the shared system prompt with the
 * replan history, and the phase's prompt file filled with the phase result,
 * the plan, the execution history and the context. Everything taken from the
 * request, the plan or tool output is fenced as data.
 */
import type { ChatMessage } from '../../core/llm-port.ts';
import type { Plan } from '../../core/plan.ts';
import type { ReplanCheckpoint, RunView } from '../../core/hooks.ts';
import { fenceData, renderPrompt } from '../../core/prompts.ts';
import type { ActionRecord } from '../../core/records.ts';
import type { ReplanPrompts } from './prompts.ts';

const ACTION_LINES = 30;
const TEXT_CHARS = 4000;

const json = (value: unknown) => JSON.stringify(value, null, 2);
const cap = (text: string, max = TEXT_CHARS) =>
  text.length <= max ? text : `${text.slice(0, max)}\n…(cut)`;

function actionLine(a: ActionRecord): string {
  return `- ${a.key} ${a.action.task_id} (${a.status}): ${a.action.purpose} — ${a.summary.replace(/\s+/g, ' ').slice(0, 200)}`;
}

function actionLines(actions: readonly ActionRecord[]): string {
  if (actions.length === 0) return '(none yet)';
  const shown = actions.slice(-ACTION_LINES).map(actionLine);
  const more = actions.length - shown.length;
  return [...(more > 0 ? [`(${more} earlier actions not shown)`] : []), ...shown].join('\n');
}

function errorCounts(actions: readonly ActionRecord[]): { errors: number; consecutive: number } {
  let consecutive = 0;
  for (let i = actions.length - 1; i >= 0 && actions[i]!.status === 'failure'; i -= 1)
    consecutive += 1;
  return { errors: actions.filter((a) => a.status === 'failure').length, consecutive };
}

function view(checkpoint: ReplanCheckpoint): Omit<RunView, 'llm'> {
  return checkpoint.run ?? { request: '', tools: [], actions: [], changedFiles: [] };
}

function toolsText(tools: readonly string[]): string {
  return tools.length === 0 ? '(not known)' : tools.map((t) => `- \`${t}\`: available`).join('\n');
}

function goalValues(plan: Plan, run: Omit<RunView, 'llm'>): Record<string, string> {
  return {
    goal_understanding_result: fenceData('Goal understanding', json(plan.goal_understanding)),
    task_request: fenceData('Task request', cap(run.request || '(not given)')),
    context_info: fenceData(
      'Context',
      [plan.goal_understanding.context, `Executed actions so far:\n${actionLines(run.actions)}`]
        .filter(Boolean)
        .join('\n\n'),
    ),
  };
}

function decompositionValues(plan: Plan, run: Omit<RunView, 'llm'>): Record<string, string> {
  return {
    task_decomposition_result: fenceData('Task decomposition', json(plan.task_decomposition)),
    goal_understanding: fenceData('Goal understanding', json(plan.goal_understanding)),
    available_tools: toolsText(run.tools),
  };
}

function sequenceValues(plan: Plan, run: Omit<RunView, 'llm'>): Record<string, string> {
  return {
    action_plan: fenceData('Action plan', json(plan.action_plan)),
    subtasks: fenceData('Subtasks', json(plan.task_decomposition.subtasks)),
    tool_availability: toolsText(run.tools),
  };
}

function executionValues(
  checkpoint: Extract<ReplanCheckpoint, { point: 'execution' }>,
  run: Omit<RunView, 'llm'>,
): Record<string, string> {
  const { action, remaining } = checkpoint;
  const actions = run.actions.length > 0 ? run.actions : [action];
  const counts = errorCounts(actions);
  const calls = action.toolCalls
    .map((c) => `$ ${c.name} ${c.brief} → ${c.ok ? 'ok' : 'error'}\n${c.outputHead}`)
    .join('\n');
  const done = actions.filter((a) => a.status === 'success').length;
  return {
    executed_action: fenceData('Executed action', json(action.action)),
    execution_result: fenceData(
      'Execution result',
      cap(
        `${action.status.toUpperCase()} after ${action.turns} turns: ${action.summary}\n${calls}`,
      ),
    ),
    error_info: action.error ? fenceData('Error', cap(action.error, 2000)) : '(none)',
    completed_count: String(done),
    total_count: String(actions.length + remaining.length),
    error_count: String(counts.errors),
    consecutive_errors: String(counts.consecutive),
    remaining_actions:
      remaining.length === 0
        ? '(none)'
        : fenceData('Remaining actions', json(remaining.map((s) => s.action))),
  };
}

function evaluationValues(
  checkpoint: Extract<ReplanCheckpoint, { point: 'final_evaluation' }>,
  run: Omit<RunView, 'llm'>,
): Record<string, string> {
  const { plan, assessment, tests } = checkpoint;
  const testLines = tests.map(
    (t) => `- \`${t.command}\` exit ${t.exitCode ?? 'none'}${t.timedOut ? ' (timed out)' : ''}`,
  );
  return {
    goal_understanding: fenceData('Goal understanding', json(plan.goal_understanding)),
    success_criteria: plan.goal_understanding.success_criteria
      .map((c, i) => `- AC-${i + 1}: ${c}`)
      .join('\n'),
    execution_summary: fenceData('Completion assessment', json(assessment)),
    completed_actions: fenceData('Actions', actionLines(run.actions)),
    current_state: fenceData(
      'Current state',
      [
        `Changed files: ${run.changedFiles.length === 0 ? '(none)' : run.changedFiles.join(', ')}`,
        `Test runs:\n${testLines.length === 0 ? '(none)' : testLines.join('\n')}`,
      ].join('\n'),
    ),
  };
}

export function checkpointValues(checkpoint: ReplanCheckpoint): Record<string, string> {
  const run = view(checkpoint);
  switch (checkpoint.point) {
    case 'goal_understanding':
      return goalValues(checkpoint.plan, run);
    case 'task_decomposition':
      return decompositionValues(checkpoint.plan, run);
    case 'action_sequence':
      return sequenceValues(checkpoint.plan, run);
    case 'execution':
      return executionValues(checkpoint, run);
    case 'final_evaluation':
      return evaluationValues(checkpoint, run);
  }
}

/** The messages of one decision request. `history`: the replan history lines so far. */
export async function buildDecisionMessages(
  prompts: ReplanPrompts,
  checkpoint: ReplanCheckpoint,
  history: string,
): Promise<ChatMessage[]> {
  const system = renderPrompt(await prompts.load('system'), { replan_history: history });
  const user = renderPrompt(await prompts.load(checkpoint.point), checkpointValues(checkpoint));
  return [
    { role: 'system', content: system },
    { role: 'user', content: user },
  ];
}

/** The messages of an escalation: the blocked decision, why, and the options left. */
export async function buildEscalationMessages(
  prompts: ReplanPrompts,
  input: { decision: unknown; overrideReason: string; options: readonly string[]; history: string },
): Promise<ChatMessage[]> {
  const system = renderPrompt(await prompts.load('system'), { replan_history: input.history });
  const user = renderPrompt(await prompts.load('escalation'), {
    decision: fenceData('Decision', json(input.decision)),
    override_reason: input.overrideReason,
    options: input.options.map((o) => `- \`${o}\``).join('\n'),
  });
  return [
    { role: 'system', content: system },
    { role: 'user', content: user },
  ];
}
