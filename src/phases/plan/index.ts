import type { ChatMessage } from '../../core/llm-port.ts';
import type { RunContext } from '../../core/run-context.ts';
import { fenceData, renderPrompt } from '../../core/prompts.ts';
import type { ActionRecord } from '../../core/records.ts';
import type { Gathered } from '../../core/gathered.ts';
import { renderGathered } from '../gather/render.ts';
import { planningEnvironmentValues } from '../environment/planning-values.ts';
import {
  planReplySchema,
  toPlanningResult,
  type Plan,
  type PlanningResult,
} from '../../core/plan.ts';

export interface PlanInput {
  /** Why the previous plan is being replaced (review FAIL, replan decision). */
  feedback?: string;
  /** Actions already carried out, so a new plan does not repeat them. */
  completed?: readonly ActionRecord[];
}

async function systemPrompt(ctx: RunContext): Promise<string> {
  const { config, task } = ctx;
  const fixed = config.environment.name;
  return renderPrompt(await ctx.deps.prompts.load('planning'), {
    strategy: config.planning.strategy,
    decomposition_level: config.planning.decomposition_level,
    max_subtasks: String(config.planning.max_subtasks),
    tools: ctx.tools.map((t) => `\`${t.name}\``).join(', '),
    ...planningEnvironmentValues(),
    environment_rule:
      fixed === 'auto'
        ? ''
        : `\nThe environment is fixed to **${fixed}** by the configuration: select it.`,
    reflection_interval: String(config.planning.reflection.trigger_interval),
    extra_instructions: task.meta.systemPrompt
      ? `\n## Additional instructions from the task file\n\n${task.meta.systemPrompt}`
      : '',
  });
}

/** The user message of a planning call: the gathered context, earlier actions, feedback. */
export function planningUserPrompt(gathered: Gathered, input: PlanInput): string {
  const parts = [renderGathered(gathered)];
  if (input.completed && input.completed.length > 0) {
    const done = input.completed.map(
      (a) =>
        `- ${a.action.task_id} (${a.status}): ${a.action.purpose} — ${a.summary.slice(0, 200)}`,
    );
    parts.push(
      `## Actions already carried out in this run\n\n${fenceData('actions carried out', done.join('\n'))}`,
    );
  }
  if (input.feedback)
    parts.push(
      `## Feedback on the previous plan (address it in the new plan)\n\n${fenceData('feedback', input.feedback)}`,
    );
  parts.push('Create the plan now, as one JSON object.');
  return parts.join('\n\n');
}

/** A one-action plan for `planning.enabled: false`: no planning call, the request is the action. */
export function directPlan(ctx: RunContext): Plan {
  const request = ctx.state.gathered!.request;
  const objective = request.title || request.body.slice(0, 200);
  return {
    phase: 'planning',
    goal_understanding: {
      main_objective: objective,
      success_criteria: ['The request is carried out as described'],
      constraints: [],
      context: '',
    },
    task_decomposition: {
      reasoning: 'Planning is disabled; the request is carried out as one action.',
      subtasks: [
        {
          id: 'task_1',
          description: objective,
          dependencies: [],
          estimated_complexity: 'medium',
          required_tools: ctx.tools.map((t) => t.name),
        },
      ],
    },
    action_plan: {
      execution_order: ['task_1'],
      actions: [
        {
          task_id: 'task_1',
          action_type: 'tool_call',
          tool: 'none',
          purpose: 'Carry out the request',
          expected_outcome: 'The request is carried out',
          fallback_strategy: 'Report what could not be done',
        },
      ],
    },
    selected_environment: {
      name: ctx.config.environment.name === 'auto' ? 'python' : ctx.config.environment.name,
      reason: 'Planning is disabled; the configured or default environment is used.',
      detected_files: [],
      setup_commands: [],
      verification: [],
    },
    comment: 'Planning is disabled; executing the request directly.',
  };
}

/**
 * The planning phase: one JSON call
 * returning the whole plan, validated by zod with re-asks done by the LLM
 * port, or a clarification request when the goal is unclear.
 */
export async function planTask(ctx: RunContext, input: PlanInput = {}): Promise<PlanningResult> {
  if (!ctx.config.planning.enabled) return { kind: 'plan', plan: directPlan(ctx) };
  const messages: ChatMessage[] = [
    { role: 'system', content: await systemPrompt(ctx) },
    { role: 'user', content: planningUserPrompt(ctx.state.gathered!, input) },
  ];
  const reply = await ctx.llm.json({
    purpose: 'planning',
    role: 'planning',
    messages,
    schema: planReplySchema(ctx.config.planning.max_subtasks),
    schemaName: 'plan',
  });
  const result = toPlanningResult(reply.value);
  ctx.logger.info('plan done', {
    kind: result.kind,
    subtasks: result.kind === 'plan' ? result.plan.task_decomposition.subtasks.length : 0,
    actions: result.kind === 'plan' ? result.plan.action_plan.actions.length : 0,
    reasks: reply.reasks,
  });
  return result;
}
