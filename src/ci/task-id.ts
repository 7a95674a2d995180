import type { CiContext } from './context.ts';

/** The task id of a CI run: one per job that starts a run (the run job keeps the plan job's). */
export const ciTaskId = (run: { context: Pick<CiContext, 'job'> }) => `job-${run.context.job.id}`;
