import { parseMarker, renderMarker } from '../core/marker.ts';
import { Redactor } from '../log/redact.ts';
import { prepareNoteBody } from '../report/note-body.ts';
import { helpLines } from '../report/notes/reply-note.ts';
import type { AgentPipeline } from './bridge-port.ts';
import type { CommandTarget } from './note-rules.ts';

/**
 * The short notes the bridge posts in a command's thread (A1, A6). Every body
 * carries the hidden `reply` marker (so the agent never treats it as a
 * command), is redacted, and has every line that would start with `/` escaped,
 * so no reply can run a GitLab quick action (M3).
 */
export function finishReply(text: string, redactor: Redactor = new Redactor()): string {
  // a reply rendered in report/notes (status) carries its own marker already
  const marked = parseMarker(text) ? text : `${renderMarker({ kind: 'reply' })}\n${text}`;
  return prepareNoteBody(marked, { redactor });
}

function where(target: CommandTarget): string {
  return target.kind === 'merge_request' ? 'this merge request' : 'this issue';
}

function pipelineLink(pipeline: AgentPipeline): string {
  return pipeline.webUrl
    ? `[pipeline #${pipeline.id}](${pipeline.webUrl})`
    : `pipeline #${pipeline.id}`;
}

/** The command list, in the same words as the job's help reply (report/notes/reply-note.ts). */
export function helpText(prefix: string): string {
  return helpLines({ taskId: '', commandPrefix: prefix }).join('\n');
}

export function alreadyRunningText(
  target: CommandTarget,
  pipeline: AgentPipeline,
  prefix: string,
): string {
  return [
    `An agent run is already in progress for ${where(target)}: ${pipelineLink(pipeline)} (${pipeline.status}).`,
    `This command was not started. Wait for the run to finish, or cancel it with \`${prefix} stop\`.`,
  ].join('\n');
}

export function stoppedText(pipelines: readonly AgentPipeline[]): string {
  const list = pipelines.map(pipelineLink).join(', ');
  return `Cancelled the agent run: ${list}.`;
}

export function nothingToStopText(target: CommandTarget): string {
  return `No agent run is active for ${where(target)}; nothing to stop.`;
}

/** `hint`: what to change, when the cause is known (e.g. pipeline variables refused, #21). */
export function startFailedText(reason: string, hint?: string): string {
  return [
    'Could not start the agent pipeline.',
    '',
    `GitLab answered: ${reason}`,
    '',
    hint ??
      'Check that the trigger token is valid and that `workflow:rules` allow pipelines with source `trigger`.',
  ].join('\n');
}

/**
 * The internal reply to a command said in private (issue 19 §6): what the
 * agent writes — notes, commits, a merge request — is public, so nothing was
 * started. The command's text is not repeated.
 */
export function privateRefusalText(target: CommandTarget): string {
  return [
    `mr-agent started nothing: this command is in an internal note or on a confidential issue, and everything the agent writes on ${where(target)} (notes, commits, a merge request) would be public.`,
    'Ask again in a public comment if the task and its result may be public.',
  ].join('\n\n');
}
