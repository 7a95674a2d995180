import * as z from 'zod';
import type { ReplanPoint } from '../../core/hooks.ts';

/**
 * The replan decision the model returns plus the extra fields of each
 * checkpoint. The core fields are
 * required; lists default to empty and the phase extras are optional, so a
 * reply that leaves out an extra is still usable. The envelope
 * `{"replan_decision": {...}}` may be left out by the model.
 */
export const REPLAN_POINTS = [
  'goal_understanding',
  'task_decomposition',
  'action_sequence',
  'execution',
  'final_evaluation',
] as const satisfies readonly ReplanPoint[];

/** The kinds of replan, plus `retry` and `none` for the execution checkpoint. */
export const REPLAN_TYPES = [
  'clarification_request',
  'goal_revision',
  'task_redecomposition',
  'action_regeneration',
  'partial_replan',
  'full_replan',
  'plan_revision',
  'retry',
  'none',
] as const;
export type ReplanType = (typeof REPLAN_TYPES)[number];

const Strings = z.array(z.string()).default([]);
const Text = z.string().nullish();

export const DecisionCore = z.object({
  replan_needed: z.boolean(),
  confidence: z.number().min(0).max(1),
  reasoning: z.string(),
  replan_type: z.enum(REPLAN_TYPES).default('none'),
  /** A phase name; normalised by `targetLevel` (unknown names are ignored). */
  target_phase: Text,
  replan_level: z.number().int().min(1).max(5).nullish(),
  issues_found: Strings,
  recommended_actions: Strings,
  clarification_needed: z.boolean().default(false),
  clarification_questions: Strings,
  /** What the agent assumes when nobody answers (any phase may ask). */
  assumptions_to_make: Strings,
});

/** Extra fields of the task-decomposition checkpoint. */
const DecompositionExtras = z.object({
  missing_steps: Strings,
  recommended_granularity: Text,
  scope_adjustment: Text,
});

/** Extra fields of the action-sequence checkpoint. */
const ActionSequenceExtras = z.object({
  unavailable_tools: Strings,
  alternative_tools: Strings,
  dependency_issues: Strings,
  plan_adjustments: Strings,
});

/** Extra fields of the execution checkpoint. */
const ExecutionExtras = z.object({
  error_classification: z.enum(['transient', 'persistent', 'fatal']).nullish(),
  recovery_strategy: Text,
  affected_actions: Strings,
});

/** Extra fields of the evaluation checkpoint. */
const EvaluationExtras = z.object({
  evaluation_result: z.enum(['success', 'partial_success', 'failure']).nullish(),
  achievement_rate: z.number().min(0).max(100).nullish(),
  issues_identified: Strings,
  additional_actions: Strings,
  revision_scope: z.enum(['minor', 'moderate', 'major']).nullish(),
});

const PHASE_DECISIONS = {
  goal_understanding: DecisionCore,
  task_decomposition: DecisionCore.extend(DecompositionExtras.shape),
  action_sequence: DecisionCore.extend(ActionSequenceExtras.shape),
  execution: DecisionCore.extend(ExecutionExtras.shape),
  final_evaluation: DecisionCore.extend(EvaluationExtras.shape),
};

/** Every field any phase may carry (the extras of the other phases absent). */
export type ReplanDecision = z.infer<typeof DecisionCore> &
  Partial<z.infer<typeof DecompositionExtras>> &
  Partial<z.infer<typeof ActionSequenceExtras>> &
  Partial<z.infer<typeof ExecutionExtras>> &
  Partial<z.infer<typeof EvaluationExtras>>;

function checkClarification(
  decision: { clarification_needed: boolean; clarification_questions: string[] },
  ctx: z.RefinementCtx,
): void {
  if (decision.clarification_needed && decision.clarification_questions.length === 0)
    ctx.addIssue({
      code: 'custom',
      path: ['replan_decision', 'clarification_questions'],
      message: 'give at least one question when clarification_needed is true',
    });
}

/** Accepts the decision with or without its `replan_decision` envelope. */
function envelope(value: unknown): unknown {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    if (!('replan_decision' in record) && 'replan_needed' in record)
      return { replan_decision: record };
  }
  return value;
}

/** The reply schema for one checkpoint: `{ replan_decision: {...} }`. */
export function decisionSchemaFor(point: ReplanPoint) {
  const inner = PHASE_DECISIONS[point];
  return z.preprocess(
    envelope,
    z.object({ replan_decision: inner.superRefine(checkClarification) }),
  );
}

export type DecisionReply = { replan_decision: ReplanDecision };

/** The reply to an escalation : one of the offered options. */
export const EscalationReply = z.object({
  choice: z.string().min(1),
  reasoning: z.string(),
});
export type EscalationReply = z.infer<typeof EscalationReply>;
