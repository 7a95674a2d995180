/** Replan checkpoints and phases in the note's words. */
import type { MessageKey } from '../../messages/en.ts';
import type { Voice } from './headline.ts';

const CHECKPOINTS = new Set([
  'goal_understanding',
  'task_decomposition',
  'action_sequence',
  'execution',
  'reflection',
  'final_evaluation',
]);

/** A replan checkpoint or phase in words (`task_decomposition` → `task decomposition`). */
export function checkpointName(v: Voice, point: string): string {
  const key =
    point === 'action_sequence_generation'
      ? 'action_sequence'
      : point === 'monitoring'
        ? 'reflection'
        : point;
  if (CHECKPOINTS.has(key)) return v.m(`checkpoint.${key}` as MessageKey);
  const phases = ['pre_planning', 'planning', 'environment_setup', 'verification'];
  if (phases.includes(key)) return v.m(`phase.${key}` as MessageKey);
  return key.replace(/[_.]+/g, ' ').trim();
}
