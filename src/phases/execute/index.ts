import { CancelledError } from '../../errors/errors.ts';
import type { ChatMessage, ToolCall } from '../../core/llm-port.ts';
import type { RunContext } from '../../core/run-context.ts';
import { fenceData, renderPrompt } from '../../core/prompts.ts';
import type { ActionRecord, ToolCallRecord } from '../../core/records.ts';
import { runToolCall, toolDefinitions, type ToolOutcome } from '../../tools/registry.ts';
import type { PlanStep } from '../../core/plan-steps.ts';
import { progressDigest } from '../../core/progress/digest.ts';
import { compactMessages } from './budget.ts';
import { changedPaths, briefArguments } from './tool-brief.ts';

const REQUEST_EXCERPT_CHARS = 2000;

/** The system prompt is the same for every action of a run (cache-friendly). */
export async function executionSystemPrompt(ctx: RunContext): Promise<string> {
  if (ctx.state.executionSystem !== undefined) return ctx.state.executionSystem;
  const env = ctx.state.environment;
  const section =
    env && ctx.deps.environment ? await ctx.deps.environment.executionSection(env) : '';
  ctx.state.executionSystem = renderPrompt(await ctx.deps.prompts.load('execution'), {
    environment_section: section,
  });
  return ctx.state.executionSystem;
}

/** The current action with the goal, the progress so far and the request (the user message of an action). */
export function actionPrompt(ctx: RunContext, step: PlanStep): string {
  const plan = ctx.state.plan!;
  const goal = plan.goal_understanding;
  const subtask = plan.task_decomposition.subtasks.find((s) => s.id === step.action.task_id);
  const request = ctx.state.gathered!.request;
  const criteria = goal.success_criteria.map((c, i) => `AC-${i + 1}: ${c}`);
  return [
    `## Goal\n\n${goal.main_objective}\n\nSuccess criteria:\n${criteria.join('\n')}${goal.constraints.length ? `\n\nConstraints:\n${goal.constraints.map((c) => `- ${c}`).join('\n')}` : ''}`,
    `## Progress\n\n${progressDigest({ actions: ctx.state.actions, upcoming: ctx.state.queue, changedFiles: ctx.state.changedFiles })}`,
    `## Current action (${step.key})\n\n${JSON.stringify({ ...step.action, subtask: subtask?.description }, null, 2)}`,
    `## Request (excerpt; the tool read_request returns all of it)\n\n${fenceData('request', `${request.title}\n\n${request.body}`.slice(0, REQUEST_EXCERPT_CHARS))}`,
  ].join('\n\n');
}

function statusOf(
  content: string,
  last: ToolOutcome | undefined,
): { status: 'success' | 'failure'; error?: string } {
  const text = content.trim();
  if (/^failed\b/i.test(text))
    return { status: 'failure', error: text.replace(/^failed:?\s*/i, '') };
  if (/^done\b/i.test(text)) return { status: 'success' };
  if (last && !last.ok) return { status: 'failure', error: last.output.slice(0, 300) };
  return { status: 'success' };
}

async function runCalls(
  ctx: RunContext,
  calls: readonly ToolCall[],
  messages: ChatMessage[],
  records: ToolCallRecord[],
): Promise<ToolOutcome | undefined> {
  let last: ToolOutcome | undefined;
  for (const call of calls) {
    last = await runToolCall(ctx.tools, call, ctx.toolContext, () => ctx.deps.clock.now());
    messages.push({ role: 'tool', toolCallId: call.id, content: last.output });
    records.push({
      name: call.name,
      ok: last.ok,
      brief: briefArguments(call),
      durationMs: last.durationMs,
      outputHead: last.output.slice(0, 300),
    });
    if (last.ok) for (const file of changedPaths(call)) ctx.state.changedFiles.add(file);
  }
  return last;
}

/**
 * Executes one planned action: a bounded loop of
 * model turns with tool calls. An assistant message without tool calls ends
 * the action; its `DONE:`/`FAILED:` prefix (or an unrecovered tool error)
 * decides the status. Tool failures go back to the model as text.
 */
export async function executeAction(ctx: RunContext, step: PlanStep): Promise<ActionRecord> {
  const startedAt = ctx.deps.clock.now();
  const maxTurns = ctx.config.execution.max_turns_per_action;
  const tools = toolDefinitions(ctx.tools);
  const messages: ChatMessage[] = [
    { role: 'system', content: await executionSystemPrompt(ctx) },
    { role: 'user', content: actionPrompt(ctx, step) },
  ];
  const records: ToolCallRecord[] = [];
  let last: ToolOutcome | undefined;
  for (let turn = 1; turn <= maxTurns; turn++) {
    if (ctx.signal?.aborted) throw new CancelledError('the run was cancelled');
    compactMessages(messages, ctx.config.execution.context_budget_chars);
    const reply = await ctx.llm.chat({ purpose: 'execution', role: 'execution', messages, tools });
    if (reply.toolCalls.length === 0) {
      const summary = ctx.deps.redactor.redact(reply.content ?? '').trim() || '(no message)';
      const { status, error } = statusOf(summary, last);
      return {
        key: step.key,
        action: step.action,
        status,
        summary,
        toolCalls: records,
        turns: turn,
        startedAt,
        finishedAt: ctx.deps.clock.now(),
        ...(error !== undefined ? { error } : {}),
      };
    }
    messages.push({ role: 'assistant', content: reply.content, toolCalls: reply.toolCalls });
    last = await runCalls(ctx, reply.toolCalls, messages, records);
  }
  const error = `the action did not finish within ${maxTurns} model turns (execution.max_turns_per_action)`;
  return {
    key: step.key,
    action: step.action,
    status: 'failure',
    summary: error,
    toolCalls: records,
    turns: maxTurns,
    startedAt,
    finishedAt: ctx.deps.clock.now(),
    error,
  };
}
