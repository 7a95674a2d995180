import * as z from 'zod';
import { Plan } from './plan.ts';

/** One finished action as a checkpoint keeps it: enough to skip it and to tell the model what it did. */
export const CheckpointAction = z.object({
  key: z.string().min(1),
  task_id: z.string().min(1),
  status: z.enum(['success', 'failure']),
  summary: z.string(),
});
export type CheckpointAction = z.infer<typeof CheckpointAction>;

/**
 * What a later job needs to go on from where a run stopped: the plan, the
 * actions it finished with their results, and a short summary of the run
 * so far. The working-tree change travels next to it as `change.patch`,
 * against `base_commit` (a commit the branch had).
 */
export const Checkpoint = z.object({
  version: z.literal(1),
  run_id: z.string().min(1),
  /** `mr-<iid>`, `issue-<iid>` or `branch-<name>`: where the run worked. */
  target: z.string().min(1),
  created_at: z.iso.datetime(),
  base_commit: z.string().regex(/^[0-9a-f]{40,64}$/),
  plan: Plan,
  completed: z.array(CheckpointAction),
  /** The task ids of the plan's actions still to do, in order. */
  remaining: z.array(z.string()),
  summary: z.string(),
  /** How the run ended; absent while it works (or when it was killed). */
  ended: z.enum(['budget_exhausted', 'paused', 'failed']).optional(),
});
export type Checkpoint = z.infer<typeof Checkpoint>;

/** A checkpoint found for the merge request or issue, with its change. */
export type FoundCheckpoint =
  | { kind: 'found'; checkpoint: Checkpoint; patch: string; ref: string }
  | { kind: 'corrupt'; ref: string; problem: string }
  | { kind: 'none' };

/**
 * Where a run keeps its checkpoint so a later job finds it even when this
 * job is killed without artifacts: one hidden ref per run on the project's
 * remote, so concurrent runs never mix.
 */
export type CheckpointContent = Pick<
  Checkpoint,
  'plan' | 'completed' | 'remaining' | 'summary' | 'ended'
>;

export interface CheckpointStore {
  /**
   * Replaces this run's checkpoint with `content` and the working tree's
   * change against the branch's commit (`pushed`: the commit the run just
   * pushed, which the branch has now).
   */
  save(content: CheckpointContent, pushed?: string): Promise<void>;
  /** Removes this run's checkpoint (the run ended and nothing is left to carry on). */
  discard(): Promise<void>;
  /** The newest checkpoint of an earlier run on the same merge request or issue. */
  newest(): Promise<FoundCheckpoint>;
  /** Removes an earlier run's checkpoint once this run took it over. */
  discardRef(ref: string): Promise<void>;
}
