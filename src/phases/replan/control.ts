/**
 * The controls of replanning as pure functions (docs/replanning.md,
 * "Controls"): limits per phase and in total, overrides (limit reached,
 * confidence too low, the same trigger repeated), confidence bands and the
 * counters they read.
 */
import type { Config } from '../../config/options.ts';
import type { ReplanOverrideFacts } from '../../core/progress/model.ts';
import { BUCKET_OPTION, bucketLimit, type Bucket, type Resolved } from './levels.ts';

/** How often each kind of replan was carried out; persisted across a pause. */
export interface ReplanCounters {
  total: number;
  buckets: Partial<Record<Bucket, number>>;
  /** Retries per action (`task_id: purpose`); `max_action_retries` is per action. */
  retries: Record<string, number>;
  /** Replans per trigger (checkpoint, subject, level): loop detection. */
  triggers: Record<string, number>;
}

export function emptyCounters(): ReplanCounters {
  return { total: 0, buckets: {}, retries: {}, triggers: {} };
}

/** Confidence at or above this replans without a warning. */
export const HIGH_CONFIDENCE = 0.8;

export type OverrideKind =
  | 'very_low_confidence'
  | 'low_confidence'
  | 'phase_limit'
  | 'total_limit'
  | 'loop'
  | 'cannot_ask'
  | 'unparseable';

/** Why a decision was overridden: the reason for logs and prompts, the facts for the notes. */
export interface Override {
  kind: OverrideKind;
  reason: string;
  facts?: ReplanOverrideFacts;
}

export type Verdict =
  /** Nothing to do: no replan asked, or an override keeps the plan. */
  | { kind: 'keep'; override?: Override }
  /** A limit or the loop detection stops the replan: escalate. */
  | { kind: 'blocked'; override: Override }
  /** 0.3–0.5: ask the user whether to replan. */
  | { kind: 'confirm' }
  | { kind: 'clarify' }
  /** ≥ 0.5: carry the replan out; `warning` in the 0.5–0.8 band. */
  | { kind: 'execute'; warning: boolean };

export interface ControlInput {
  resolved: Resolved;
  confidence: number;
  /** Identity of the trigger (see `triggerKey`). */
  trigger: string;
  /** Identity of the action a retry repeats. */
  action?: string;
  counters: ReplanCounters;
  config: Config;
}

const pct = (n: number) => `${Math.round(n * 100)}%`;

function limitOverride(input: ControlInput): Verdict | undefined {
  const { resolved, counters, config } = input;
  if (resolved.kind === 'none') return undefined;
  const total = config.planning.replanning.global.max_total_replans;
  if (counters.total >= total)
    return {
      kind: 'blocked',
      override: {
        kind: 'total_limit',
        reason: `limit reached: ${counters.total} replans so far (planning.replanning.global.max_total_replans = ${total})`,
        facts: {
          kind: 'total_limit',
          used: counters.total,
          limit: total,
          option: 'planning.replanning.global.max_total_replans',
        },
      },
    };
  const bucket = resolved.bucket;
  const limit = bucketLimit(config, bucket);
  const used =
    bucket === 'action_retries'
      ? (counters.retries[input.action ?? ''] ?? 0)
      : (counters.buckets[bucket] ?? 0);
  if (used >= limit)
    return {
      kind: 'blocked',
      override: {
        kind: 'phase_limit',
        reason: `limit reached: ${used} of ${limit} (${BUCKET_OPTION[bucket]})`,
        facts: { kind: 'phase_limit', used, limit, option: BUCKET_OPTION[bucket] },
      },
    };
  return undefined;
}

function loopOverride(input: ControlInput): Verdict | undefined {
  const global = input.config.planning.replanning.global;
  if (!global.infinite_loop_detection) return undefined;
  const seen = input.counters.triggers[input.trigger] ?? 0;
  if (seen < global.same_trigger_max_count) return undefined;
  return {
    kind: 'blocked',
    override: {
      kind: 'loop',
      reason: `the same replan was already carried out ${seen} times for this trigger (planning.replanning.global.same_trigger_max_count = ${global.same_trigger_max_count})`,
      facts: {
        kind: 'loop',
        used: seen,
        limit: global.same_trigger_max_count,
        option: 'planning.replanning.global.same_trigger_max_count',
      },
    },
  };
}

/** Asking the user counts against `max_clarification_requests`, like a clarification. */
function questionsLeft(input: ControlInput): boolean {
  const max = bucketLimit(input.config, 'clarifications');
  return (input.counters.buckets.clarifications ?? 0) < max;
}

function noQuestionsLeft(input: ControlInput): Verdict {
  const max = bucketLimit(input.config, 'clarifications');
  return {
    kind: 'keep',
    override: {
      kind: 'low_confidence',
      reason: `confidence ${pct(input.confidence)} is below min_confidence_threshold and no question to the user is left (${BUCKET_OPTION.clarifications} = ${max})`,
    },
  };
}

/**
 * Applies the overrides and the confidence bands to a resolved decision, in this order: confidence
 * below `user_confirmation_threshold` keeps the plan; below
 * `min_confidence_threshold` keeps it too unless the user is to be asked;
 * then limits and the loop detection block (and escalate); then the
 * low-confidence band asks the user; a clarification asks its questions;
 * everything else is carried out (with a warning below 0.8).
 */
export function evaluate(input: ControlInput): Verdict {
  const { resolved, confidence, config } = input;
  if (resolved.kind === 'none') return { kind: 'keep' };
  const llm = config.planning.replanning.llm_decision;
  if (confidence < llm.user_confirmation_threshold)
    return {
      kind: 'keep',
      override: {
        kind: 'very_low_confidence',
        reason: `confidence ${pct(confidence)} is below ${pct(llm.user_confirmation_threshold)}: keeping the current plan`,
      },
    };
  const low = confidence < llm.min_confidence_threshold;
  if (low && !llm.require_user_confirmation_on_low_confidence)
    return {
      kind: 'keep',
      override: {
        kind: 'low_confidence',
        reason: `confidence ${pct(confidence)} is below min_confidence_threshold ${pct(llm.min_confidence_threshold)}`,
      },
    };
  const blocked = limitOverride(input) ?? loopOverride(input);
  if (blocked) return blocked;
  if (resolved.kind === 'clarify') return { kind: 'clarify' };
  if (low) return questionsLeft(input) ? { kind: 'confirm' } : noQuestionsLeft(input);
  return { kind: 'execute', warning: confidence < HIGH_CONFIDENCE };
}

/** Counts a replan that is carried out (or a question that is asked). */
export function countReplan(
  counters: ReplanCounters,
  resolved: Exclude<Resolved, { kind: 'none' }>,
  keys: { trigger: string; action?: string },
): ReplanCounters {
  const next: ReplanCounters = {
    total: counters.total + 1,
    buckets: { ...counters.buckets },
    retries: { ...counters.retries },
    triggers: { ...counters.triggers, [keys.trigger]: (counters.triggers[keys.trigger] ?? 0) + 1 },
  };
  if (resolved.kind === 'replan' && resolved.bucket === 'action_retries' && keys.action)
    next.retries[keys.action] = (next.retries[keys.action] ?? 0) + 1;
  else next.buckets[resolved.bucket] = (next.buckets[resolved.bucket] ?? 0) + 1;
  return next;
}
