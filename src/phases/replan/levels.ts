/**
 * Replan levels (docs/replanning.md, "Levels") and what each one redoes: the
 * restart point of the run (`ReplanDirective`), the limit it counts against
 * and how the checklist changes.
 */
import type { Config } from '../../config/options.ts';
import type { ReplanFrom, ReplanPoint } from '../../core/hooks.ts';
import type { ReplanDecision, ReplanType } from './schema.ts';

export type ReplanLevel = 1 | 2 | 3 | 4 | 5;

/** The limit a replan counts against; level 5 shares the goal-understanding limit. */
export type Bucket =
  | 'clarifications'
  | 'redecompositions'
  | 'regenerations'
  | 'action_retries'
  | 'partial_replans'
  | 'plan_revisions';

export const BUCKETS: readonly Bucket[] = [
  'clarifications',
  'redecompositions',
  'regenerations',
  'action_retries',
  'partial_replans',
  'plan_revisions',
];

export type Resolved =
  | { kind: 'none' }
  | { kind: 'clarify'; bucket: 'clarifications' }
  | { kind: 'replan'; level: ReplanLevel; bucket: Bucket };

const LEVEL_OF_TYPE: Partial<Record<ReplanType, ReplanLevel>> = {
  retry: 1,
  partial_replan: 2,
  plan_revision: 2,
  action_regeneration: 3,
  task_redecomposition: 4,
  full_replan: 4,
  goal_revision: 5,
};

/** Phase names the model may give as `target_phase`, and the level that restarts there. */
const LEVEL_OF_TARGET: Readonly<Record<string, ReplanLevel>> = {
  execution: 2,
  remaining_actions: 2,
  reflection: 2,
  monitoring: 2,
  action_sequence: 3,
  action_sequence_generation: 3,
  action_plan: 3,
  task_decomposition: 4,
  goal_understanding: 5,
};

/** When the model names neither level, type nor target: what the checkpoint's own phase redoes. */
const DEFAULT_LEVEL: Record<ReplanPoint, ReplanLevel> = {
  goal_understanding: 5,
  task_decomposition: 4,
  action_sequence: 3,
  execution: 2,
  final_evaluation: 2,
};

/** Lowest level that makes sense at a checkpoint: nothing ran before execution. */
const MIN_LEVEL: Record<ReplanPoint, ReplanLevel> = {
  goal_understanding: 3,
  task_decomposition: 3,
  action_sequence: 3,
  execution: 1,
  final_evaluation: 2,
};

function targetLevel(target: string | null | undefined): ReplanLevel | undefined {
  if (!target) return undefined;
  return LEVEL_OF_TARGET[
    target
      .trim()
      .toLowerCase()
      .replace(/[\s-]+/g, '_')
  ];
}

/** The level a decision asks for: its level, else its type, else its target, else the checkpoint's. */
export function levelOf(point: ReplanPoint, decision: ReplanDecision): ReplanLevel {
  const asked =
    (decision.replan_level as ReplanLevel | null | undefined) ??
    LEVEL_OF_TYPE[decision.replan_type] ??
    targetLevel(decision.target_phase) ??
    DEFAULT_LEVEL[point];
  return Math.max(asked, MIN_LEVEL[point]) as ReplanLevel;
}

export function bucketOf(point: ReplanPoint, level: ReplanLevel): Bucket {
  switch (level) {
    case 1:
      return 'action_retries';
    case 2:
      return point === 'final_evaluation' ? 'plan_revisions' : 'partial_replans';
    case 3:
      return 'regenerations';
    case 4:
      return 'redecompositions';
    case 5:
      return 'clarifications';
  }
}

export function isClarification(decision: ReplanDecision): boolean {
  return decision.clarification_needed || decision.replan_type === 'clarification_request';
}

/** What a decision asks the run to do, before the controls (limits, overrides, confidence) are applied. */
export function resolveDecision(point: ReplanPoint, decision: ReplanDecision): Resolved {
  if (isClarification(decision) && decision.clarification_questions.length > 0)
    return { kind: 'clarify', bucket: 'clarifications' };
  if (!decision.replan_needed) return { kind: 'none' };
  const level = levelOf(point, decision);
  return { kind: 'replan', level, bucket: bucketOf(point, level) };
}

/** Where the run restarts for a level ≥ 2. */
export const RESTART_FROM: Record<Exclude<ReplanLevel, 1>, ReplanFrom> = {
  2: 'remaining_actions',
  3: 'action_sequence',
  4: 'task_decomposition',
  5: 'goal_understanding',
};

export const LEVEL_NAMES: Record<ReplanLevel, string> = {
  1: 'retry the action',
  2: 'replan the remaining actions',
  3: 'regenerate the action sequence',
  4: 're-decompose the task',
  5: 'revisit the goal',
};

/** The checkpoints whose phase is redone by a restart at `from` (decisions there are asked again). */
export function redonePoints(level: ReplanLevel): ReadonlySet<ReplanPoint> {
  if (level >= 5) return new Set(['goal_understanding', 'task_decomposition', 'action_sequence']);
  if (level === 4) return new Set(['task_decomposition', 'action_sequence']);
  if (level >= 2) return new Set(['action_sequence']);
  return new Set();
}

/** The configured limit of a bucket (`planning.replanning` settings). */
export function bucketLimit(config: Config, bucket: Bucket): number {
  const r = config.planning.replanning;
  switch (bucket) {
    case 'clarifications':
      return r.goal_understanding.max_clarification_requests;
    case 'redecompositions':
      return r.task_decomposition.max_redecomposition_attempts;
    case 'regenerations':
      return r.action_sequence.max_regeneration_attempts;
    case 'action_retries':
      return r.execution.max_action_retries;
    case 'partial_replans':
      return r.execution.max_partial_replans;
    case 'plan_revisions':
      return r.reflection.max_plan_revisions;
  }
}

/** The option (its full key, as `--set` and `.mr-agent.yml` take it) of a bucket's limit, for override reasons. */
export const BUCKET_OPTION: Record<Bucket, string> = {
  clarifications: 'planning.replanning.goal_understanding.max_clarification_requests',
  redecompositions: 'planning.replanning.task_decomposition.max_redecomposition_attempts',
  regenerations: 'planning.replanning.action_sequence.max_regeneration_attempts',
  action_retries: 'planning.replanning.execution.max_action_retries',
  partial_replans: 'planning.replanning.execution.max_partial_replans',
  plan_revisions: 'planning.replanning.reflection.max_plan_revisions',
};
