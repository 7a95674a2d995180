/** What every note's hidden marker carries: the task and, in CI, the job and pipeline. */
import type { NoteKind } from '../../core/marker.ts';
import { renderMarker } from '../../core/marker.ts';

export interface NoteContext {
  taskId: string;
  jobId?: string;
  pipelineId?: string;
}

export function markerFor(kind: NoteKind, context: NoteContext, state?: string): string {
  return renderMarker({
    kind,
    task: context.taskId,
    job: context.jobId,
    pipeline: context.pipelineId,
    state,
  });
}

/** Display names of the replanning phases of seed 003 §3. */
const REPLAN_PHASE_NAMES: Readonly<Record<string, string>> = {
  goal_understanding: 'Goal Understanding',
  task_decomposition: 'Task Decomposition',
  action_sequence: 'Action Sequence Generation',
  action_sequence_generation: 'Action Sequence Generation',
  execution: 'Execution',
  reflection: 'Monitoring and Reflection',
  monitoring: 'Monitoring and Reflection',
  final_evaluation: 'Final Evaluation',
  pre_planning: 'Pre Planning',
  planning: 'Planning',
  environment_setup: 'Environment Setup',
  verification: 'Verification',
};

/** `task_decomposition` → `Task Decomposition`; unknown names are title-cased. */
export function phaseDisplayName(phase: string): string {
  return (
    REPLAN_PHASE_NAMES[phase] ??
    phase
      .split(/[_\s.]+/)
      .filter(Boolean)
      .map((w) => w[0]!.toUpperCase() + w.slice(1))
      .join(' ')
  );
}
