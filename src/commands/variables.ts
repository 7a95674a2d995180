import { cutText } from '../core/text.ts';
import type { CommandRequest, ResumePoint } from './note-rules.ts';

/**
 * The variables a comment-triggered pipeline receives. `mr-agent ci`
 * reads the same names for manual and API runs. A reply that resumes a
 * paused run has `MR_AGENT_COMMAND=resume`, no `MR_AGENT_TASK` (the task
 * is the paused run's), `MR_AGENT_NOTE_ID` = the reply, and the
 * `MR_AGENT_RESUME_*` names: the ❓ question's thread and note, and its
 * marker's task and job (the job whose artifacts hold `.mr-agent/`).
 */
export const TRIGGER_VARIABLES = [
  'MR_AGENT_TASK',
  'MR_AGENT_SOURCE',
  'MR_AGENT_COMMAND',
  'MR_AGENT_NOTE_ID',
  'MR_AGENT_MR_IID',
  'MR_AGENT_ISSUE_IID',
  'MR_AGENT_TRIGGERED_BY',
  'MR_AGENT_RESUME_DISCUSSION_ID',
  'MR_AGENT_RESUME_QUESTION_NOTE_ID',
  'MR_AGENT_RESUME_TASK_ID',
  'MR_AGENT_RESUME_JOB_ID',
] as const;
export type TriggerVariable = (typeof TRIGGER_VARIABLES)[number];

/**
 * Longest task text put into MR_AGENT_TASK. Trigger variables are shown on
 * every job page and stored with the pipeline; a longer request is cut here
 * and the job reads the full text from the note (MR_AGENT_NOTE_ID).
 */
export const MAX_TASK_CHARS = 8000;

export function truncateTask(text: string, max = MAX_TASK_CHARS): string {
  return cutText(text, max, { marker: () => '\n…(truncated; the full request is in the note)' });
}

export function pipelineVariables(
  request: CommandRequest,
): Partial<Record<TriggerVariable, string>> {
  const iid = String(request.target.iid);
  return {
    MR_AGENT_TASK: truncateTask(request.instruction),
    MR_AGENT_SOURCE: 'note',
    MR_AGENT_COMMAND: request.command,
    MR_AGENT_NOTE_ID: String(request.noteId),
    ...(request.target.kind === 'merge_request'
      ? { MR_AGENT_MR_IID: iid }
      : { MR_AGENT_ISSUE_IID: iid }),
    MR_AGENT_TRIGGERED_BY: String(request.user.id),
    ...(request.resume ? resumeVariables(request.resume) : {}),
  };
}

function resumeVariables(resume: ResumePoint): Partial<Record<TriggerVariable, string>> {
  return {
    MR_AGENT_RESUME_DISCUSSION_ID: resume.discussionId,
    MR_AGENT_RESUME_QUESTION_NOTE_ID: String(resume.questionNoteId),
    ...(resume.taskId ? { MR_AGENT_RESUME_TASK_ID: resume.taskId } : {}),
    ...(resume.jobId ? { MR_AGENT_RESUME_JOB_ID: resume.jobId } : {}),
  };
}

/**
 * The pipeline inputs a project declares for the request (docs/ci-component.md,
 * "Requests as pipeline inputs"), by the variable each one stands for. The job
 * reads them under the variable names: the component turns its request inputs
 * into those variables. The resume variables have no input: the job finds the
 * paused run from the reply (MR_AGENT_NOTE_ID) and the earlier runs' artifacts.
 */
export const TRIGGER_INPUTS = {
  MR_AGENT_TASK: 'mr_agent_task',
  MR_AGENT_COMMAND: 'mr_agent_command',
  MR_AGENT_NOTE_ID: 'mr_agent_note_id',
  MR_AGENT_MR_IID: 'mr_agent_mr_iid',
  MR_AGENT_ISSUE_IID: 'mr_agent_issue_iid',
  MR_AGENT_TRIGGERED_BY: 'mr_agent_triggered_by',
} as const satisfies Partial<Record<TriggerVariable, string>>;

/** The request as pipeline inputs (`inputs[mr_agent_task]`, …), only those with a value. */
export function pipelineInputs(request: CommandRequest): Record<string, string> {
  const variables = pipelineVariables(request);
  const inputs: Record<string, string> = {};
  for (const [variable, input] of Object.entries(TRIGGER_INPUTS)) {
    const value = variables[variable as TriggerVariable];
    if (value !== undefined && value !== '') inputs[input] = value;
  }
  return inputs;
}

/** The variables that have a value (what is sent to the trigger API). */
export function nonEmptyVariables(
  variables: Readonly<Partial<Record<string, string>>>,
): Record<string, string> {
  const entries = Object.entries(variables).filter(
    (entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== '',
  );
  return Object.fromEntries(entries);
}
