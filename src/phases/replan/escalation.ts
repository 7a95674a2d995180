/**
 * Escalation when a replan cannot be carried out (a limit, or a trigger
 * repeated): the model is told why and offered what is still allowed — other
 * levels within their limits and not repeating the blocked trigger, going on
 * with the current plan, or `none`. With no level left the model is not
 * asked: there is nothing to choose.
 */
import type { Config } from '../../config/options.ts';
import { CancelledError, ConfigError, isAgentError } from '../../errors/errors.ts';
import type { LlmPort } from '../../core/llm-port.ts';
import type { Logger } from '../../log/logger.ts';
import type { ReplanCheckpoint, ReplanPoint } from '../../core/hooks.ts';
import { evaluate, type ReplanCounters } from './control.ts';
import { triggerKey } from './directives.ts';
import { bucketOf, type ReplanLevel } from './levels.ts';
import { buildEscalationMessages } from './prompt-builder.ts';
import type { ReplanPrompts } from './prompts.ts';
import { EscalationReply, type ReplanDecision } from './schema.ts';

export const LEVEL_OPTIONS: Record<ReplanLevel, string> = {
  1: 'retry_action',
  2: 'replan_remaining_actions',
  3: 'regenerate_action_sequence',
  4: 'redecompose_task',
  5: 'revisit_goal',
};

const LEVELS_AT: Record<ReplanPoint, ReplanLevel[]> = {
  goal_understanding: [3, 4, 5],
  task_decomposition: [3, 4, 5],
  action_sequence: [3, 4, 5],
  execution: [1, 2, 3, 4, 5],
  final_evaluation: [2, 3, 4, 5],
};

export type EscalationChoice =
  | { kind: 'continue'; reasoning: string }
  | { kind: 'none'; reasoning: string }
  | { kind: 'level'; level: ReplanLevel; reasoning: string };

export interface EscalationInput {
  llm: LlmPort;
  prompts: ReplanPrompts;
  config: Config;
  logger: Logger;
  checkpoint: ReplanCheckpoint;
  decision: ReplanDecision;
  overrideReason: string;
  counters: ReplanCounters;
  action: string | undefined;
  history: string;
  signal?: AbortSignal;
}

/**
 * A failed decision call that means "no decision": the model's reply
 * was unusable or the service failed. Cancellation and configuration errors
 * (a prompt override with a typo) are not swallowed.
 */
export function decisionFailure(error: unknown, signal: AbortSignal | undefined): boolean {
  if (signal?.aborted || error instanceof CancelledError || error instanceof ConfigError)
    return false;
  return isAgentError(error);
}

/** The levels still allowed here: within their limits, the total, and not a repeated trigger. */
export function allowedLevels(input: EscalationInput): ReplanLevel[] {
  const point = input.checkpoint.point;
  return LEVELS_AT[point].filter((level) => {
    const resolved = { kind: 'replan', level, bucket: bucketOf(point, level) } as const;
    const verdict = evaluate({
      resolved,
      confidence: 1,
      trigger: triggerKey(input.checkpoint, resolved),
      ...(input.action ? { action: input.action } : {}),
      counters: input.counters,
      config: input.config,
    });
    return verdict.kind === 'execute';
  });
}

/** Asks the model for an alternative; an unusable reply counts as `none`. */
export async function escalate(input: EscalationInput): Promise<EscalationChoice> {
  const levels = allowedLevels(input);
  if (levels.length === 0)
    return { kind: 'none', reasoning: 'no other replan is allowed any more' };
  const options = [...levels.map((l) => LEVEL_OPTIONS[l]), 'continue', 'none'];
  try {
    const reply = await input.llm.json({
      purpose: 'replan.escalation',
      role: 'reflection',
      messages: await buildEscalationMessages(input.prompts, {
        decision: input.decision,
        overrideReason: input.overrideReason,
        options,
        history: input.history,
      }),
      schema: EscalationReply,
      schemaName: 'replan_escalation',
      ...(input.signal ? { signal: input.signal } : {}),
    });
    const choice = reply.value.choice.trim();
    const reasoning = reply.value.reasoning;
    if (choice === 'continue') return { kind: 'continue', reasoning };
    const level = levels.find((l) => LEVEL_OPTIONS[l] === choice);
    if (level) return { kind: 'level', level, reasoning };
    if (choice !== 'none') input.logger.warn('escalation chose no offered option', { choice });
    return { kind: 'none', reasoning };
  } catch (error) {
    if (!decisionFailure(error, input.signal)) throw error;
    input.logger.warn('escalation reply unusable; no alternative', {
      error: (error as Error).message,
    });
    return { kind: 'none', reasoning: 'the escalation reply could not be used' };
  }
}
