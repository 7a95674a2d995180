import type { Config } from '../../config/options.ts';
import type { RunContext } from '../../core/run-context.ts';
import { fenceData, renderPrompt, type PromptLibrary } from '../../core/prompts.ts';
import type { ActionRecord } from '../../core/records.ts';
import { progressDigest } from '../../core/progress/digest.ts';
import type { CompletionAssessment } from '../../core/completion.ts';
import { ReflectionReply } from '../../core/reflection.ts';
import type { HumanComment } from '../../core/conversation.ts';

export type ReflectionTrigger = 'error' | 'interval' | 'validation' | 'review' | 'feedback';

const REMAINING_SHOWN = 30;

export type ReflectionDepth = Config['planning']['reflection']['depth'];

/**
 * `planning.reflection.depth`: the rules of
 * `prompts/reflection-depth/<depth>.md` go into the reflection prompt, and the
 * depth sets how many of the action's tool calls the reflection sees.
 */
export const TOOL_CALLS_SHOWN: Readonly<Record<ReflectionDepth, number>> = {
  shallow: 4,
  moderate: 12,
  deep: 30,
};

function depthRules(config: Config, prompts: PromptLibrary): Promise<string> {
  const files = prompts.folder<ReflectionDepth>('reflection-depth');
  return files.load(config.planning.reflection.depth);
}

/** When to reflect: on error (if enabled) and every `trigger_interval` actions. */
export function reflectionTrigger(
  config: Config,
  record: ActionRecord,
  actionCount: number,
): ReflectionTrigger | undefined {
  const settings = config.planning.reflection;
  if (!settings.enabled) return undefined;
  if (record.status === 'failure' && settings.trigger_on_error) return 'error';
  if (settings.trigger_interval > 0 && actionCount % settings.trigger_interval === 0)
    return 'interval';
  return undefined;
}

export interface ReflectInput {
  trigger: ReflectionTrigger;
  record?: ActionRecord;
  assessment?: CompletionAssessment;
  /** Review feedback or other notes for the reflection. */
  feedback?: string;
  /** Comments people made during the run, to be heeded and answered. */
  comments?: readonly HumanComment[];
}

/** Each comment fenced as data, with its id, author and time (the rules come from the prompt file). */
export function humanComments(comments: readonly HumanComment[]): string {
  return comments
    .map((c) => fenceData(`comment ${c.id} by @${c.author.username} at ${c.createdAt}`, c.text))
    .join('\n\n');
}

function humanFeedbackRules(prompts: PromptLibrary): Promise<string> {
  return prompts.load('human-feedback');
}

/** The action a reflection evaluates (its error, closing message and tool calls fenced: they hold output). */
export function describeRecord(record: ActionRecord, depth: ReflectionDepth): string {
  const calls = record.toolCalls.map(
    (c) =>
      `- ${c.name}(${c.brief}) ${c.ok ? 'ok' : 'FAILED'}: ${c.outputHead.replace(/\n/g, ' ').slice(0, 200)}`,
  );
  return [
    `${record.key} ${JSON.stringify(record.action)}`,
    `Status: ${record.status}`,
    ...(record.error ? [fenceData('error', record.error.slice(0, 300))] : []),
    fenceData('closing message', record.summary.slice(0, 600)),
    calls.length
      ? fenceData('tool calls', calls.slice(-TOOL_CALLS_SHOWN[depth]).join('\n'))
      : 'No tool calls.',
  ].join('\n');
}

const EARLIER_REFLECTIONS_SHOWN = 5;

/** A reused plan comes with its revision history and reflections (fenced: model text). */
function earlierAttempts(ctx: RunContext): string | undefined {
  const earlier = ctx.state.reusedPlan;
  if (!earlier || (earlier.revisions.length === 0 && earlier.reflections.length === 0))
    return undefined;
  const lines = [
    ...earlier.revisions.map((r) => `revision #${r.revision}: ${r.reason}`),
    ...earlier.reflections
      .slice(-EARLIER_REFLECTIONS_SHOWN)
      .map(
        (r) =>
          `reflection (${r.status}): ${r.evaluation}${r.issues.length ? ` Issues: ${r.issues.join('; ')}` : ''}`,
      ),
  ];
  return `## Earlier attempts with this plan (${earlier.taskId})\n\nThe plan was taken over from an earlier run; do not repeat what went wrong there.\n\n${fenceData('earlier revisions and reflections', lines.join('\n'))}`;
}

async function userPrompt(ctx: RunContext, input: ReflectInput): Promise<string> {
  const { state } = ctx;
  const goal = state.plan!.goal_understanding;
  const remaining = state.queue.slice(0, REMAINING_SHOWN).map((s) => s.action);
  const parts = [
    `Reflection trigger: ${input.trigger}`,
    `## Goal\n\n${goal.main_objective}\n\n${goal.success_criteria.map((c, i) => `AC-${i + 1}: ${c}`).join('\n')}`,
    `## Progress\n\n${progressDigest({ actions: state.actions, upcoming: [], changedFiles: state.changedFiles })}`,
  ];
  if (input.record)
    parts.push(
      `## Action to evaluate\n\n${describeRecord(input.record, ctx.config.planning.reflection.depth)}`,
    );
  if (input.assessment) {
    const tests = state.tests
      .slice(-1)
      .map(
        (t) =>
          `${t.command} → exit ${t.exitCode ?? 'none'}${t.timedOut ? ' (timed out)' : ''}\n${t.outputTail}`,
      );
    parts.push(
      `## Verification result\n\n${JSON.stringify(input.assessment, null, 2)}${tests.length ? `\n\n${fenceData('test output', tests.join('\n'))}` : ''}`,
    );
  }
  if (input.feedback) parts.push(`## Review feedback to address\n\n${input.feedback}`);
  if (input.comments?.length) {
    parts.push(
      `${(await humanFeedbackRules(ctx.deps.prompts)).trim()}\n\n${humanComments(input.comments)}`,
    );
  }
  const earlier = earlierAttempts(ctx);
  if (earlier) parts.push(earlier);
  parts.push(
    `## Remaining actions (${state.queue.length})\n\n${remaining.length ? JSON.stringify(remaining, null, 2) : '(none)'}${state.queue.length > REMAINING_SHOWN ? `\n… and ${state.queue.length - REMAINING_SHOWN} more` : ''}`,
  );
  return parts.join('\n\n');
}

/** The reflection call: how the last action went, and whether the rest of the plan still fits. */
export async function reflect(ctx: RunContext, input: ReflectInput): Promise<ReflectionReply> {
  const max = ctx.config.planning.revision.max_revisions;
  const system = renderPrompt(await ctx.deps.prompts.load('reflection'), {
    reflection_interval: String(ctx.config.planning.reflection.trigger_interval),
    max_revisions: String(max),
    revisions_left: String(Math.max(0, max - ctx.state.revisions)),
    depth_rules: (await depthRules(ctx.config, ctx.deps.prompts)).trim(),
  });
  const reply = await ctx.llm.json({
    purpose: 'reflection',
    role: 'reflection',
    messages: [
      { role: 'system', content: system },
      { role: 'user', content: await userPrompt(ctx, input) },
    ],
    schema: ReflectionReply,
    schemaName: 'reflection',
  });
  ctx.logger.info('reflection done', {
    trigger: input.trigger,
    status: reply.value.reflection.status,
    revisionNeeded: reply.value.reflection.plan_revision_needed,
  });
  return reply.value;
}
